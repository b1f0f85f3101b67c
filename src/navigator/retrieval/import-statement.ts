/** One top-level import statement of a file: its lines and the names it binds, each with the line it is on. */
export interface ImportStatement {
  start: number;
  end: number;
  /** Name bound in the file (the alias when there is one) → the 1-based line naming it. */
  names: Map<string, number>;
}
