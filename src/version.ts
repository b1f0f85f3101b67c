/** The kernel version recorded with every decision. Keep in step with package.json. */
export const VERSION = '0.1.0';
