// vitest setup file: the CLI runs every navigate call in its own process during tests (no resident navigator is
// started in the background by a test that did not ask for one; tests/cli/resident.test.ts turns it on and stops it).
process.env.NAVKERNEL_RESIDENT = '0';
