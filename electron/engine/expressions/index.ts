/** The expression language (docs/api.md, Expressions): body detokenization and token-scope templates. */
export { type BodyKind, bodyKindOf } from './body-kind';
export type { InspectedExpression } from './body-inspection';
export { markersEnd, type Placement } from './body-placement';
export type { CompiledBody } from './body-template';
export { ExpressionBudget } from './expression-budget';
export type { EmptyCause, ValueShape } from './empty-result';
export { ExpressionEngine, type ExpressionEngineOptions, HOSTED_EXPRESSION_LIMIT, type WrittenExpression } from './expression-engine';
export { holdsLiteralExpression, holdsProxyExpression } from './header-template';
export { ExpressionError, ExpressionOverBudget, UnclosedExpression } from './expression-error';
export { containsExpression } from './expression-scanner';
export { isStructured, toText, writesNothing } from './rendered-value';
export type { TemplateScope } from './token-template';
export type { TokenRecord } from './token-record';
export { ENCRYPTED_KEY, isValidTokenId, madeTokenKey, type TokenExpression } from './token-reference';
