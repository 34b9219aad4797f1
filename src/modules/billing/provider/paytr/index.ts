export { type CallbackParseResult, type CallbackPayload, parseCallback } from './callback.js';
export {
  buildTokenForm,
  createPaytrClient,
  DEFAULT_TIMEOUT_LIMIT_MINUTES,
  FIELD_LIMITS,
  type PaytrClient,
  PaytrError,
  type PaytrErrorKind,
  type RefundRequest,
  type StatusResult,
  type TokenRequest,
  type TokenResult,
} from './client.js';
export {
  checkTokenRequest,
  DEFAULT_RETRY_DELAYS_MS,
  memorySandboxStore,
  returnPages,
  SANDBOX_PREFIX,
  type SandboxOrder,
  type SandboxStore,
  sandboxNotification,
  type SandboxOptions,
  sandboxRoutes,
} from './sandbox.js';
export {
  callbackHash,
  type PaytrCredentials,
  safeEqual,
  type TokenHashFields,
  refundHash,
  statusQueryHash,
  tokenRequestHash,
  verifyCallbackHash,
  verifyTokenRequestHash,
} from './signatures.js';
export { decodeBasket, encodeBasket, formatMajor, fromPaytrCurrency, parseMajor, toPaytrCurrency } from './wire.js';
