// The store ports by name: the conformance kit's lists (navkernel/testing), shared with the project's own tests.
export { STORE_PORTS, ESCALATION_READER } from '../../src/testing/store-ports.js';
