import { requireOptionalPackage } from '../../optional-package.js';

// @langchain/langgraph is an optional peer dependency: importing navkernel/langgraph without it is a
// MissingPackageError (code MISSING_PACKAGE) naming the package, not a bare ERR_MODULE_NOT_FOUND.
requireOptionalPackage('@langchain/langgraph', 'navkernel/langgraph');

/** The LangGraph.js module, loaded once navkernel/langgraph is imported. */
export const langgraph = await import('@langchain/langgraph');
