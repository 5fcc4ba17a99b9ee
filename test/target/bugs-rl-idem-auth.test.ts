import { bugTests } from './bugs.shared.ts';
bugTests(['RL', 'IDEM', 'AUTH', 'SEC']);
