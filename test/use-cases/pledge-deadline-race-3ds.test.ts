/** A friend back from 3-D Secure as the pot's deadline passes (./pledge-deadline-bed.ts says what every race here forces). */
import { deadlineRaceBed } from './pledge-deadline-bed.ts';

deadlineRaceBed().describeDeadlineRace('3ds');
