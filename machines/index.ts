import type { AnyStateMachine } from 'xstate';
import { kernelMachine } from './kernel.machine.js';
import { navigatorMachine } from './navigator.machine.js';

/** Machines whose diagram is generated into `machines/<name>.machine.mmd`. */
export const MACHINES: Record<string, AnyStateMachine> = { kernel: kernelMachine, navigator: navigatorMachine };
