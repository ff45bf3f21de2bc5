/** Where a request holds an expression that goes out as written: the proxy detokenizes the body only. */
export type OutsideBody = { part: 'header'; name: string } | { part: 'path' } | { part: 'query'; name: string };

/** Something the hosted service would do differently (history and the workbench show them), and where it is. */
export interface CompatibilityWarning {
  readonly message: string;
  /** For an expression outside the body: each place in the request that holds one. */
  readonly outside?: readonly OutsideBody[];
}
