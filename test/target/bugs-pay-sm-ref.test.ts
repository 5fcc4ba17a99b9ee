import { bugTests } from './bugs.shared.ts';
bugTests(['PAY', 'SM', 'REF', 'TEST', 'FT']);
