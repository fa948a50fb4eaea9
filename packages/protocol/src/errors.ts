import { defineErrors } from '@brine/core';

/** Errors of the minion channel: each is sent back to the peer as an `error` frame. */
export const protocolErrors = defineErrors({
  BRINE_ERR_PROTO_FRAME_TOO_LARGE: 'frame of {size} bytes exceeds the limit of {limit} bytes',
  BRINE_ERR_PROTO_BAD_JSON: 'frame is not valid JSON: {detail}',
  BRINE_ERR_PROTO_NOT_OBJECT: 'frame must be a JSON object',
  BRINE_ERR_PROTO_BAD_VERSION: 'protocol version {got} is not supported (this side speaks {want})',
  BRINE_ERR_PROTO_UNKNOWN_TYPE: "unknown message type '{type}'",
  BRINE_ERR_PROTO_BAD_FIELD: "message '{type}': field '{field}' {detail}",
  BRINE_ERR_PROTO_NOT_AUTHENTICATED: "message '{type}' before authentication",
  BRINE_ERR_PROTO_UNEXPECTED: "message '{type}' is not expected here",
  BRINE_ERR_PROTO_TOO_DEEP: "message '{type}': field '{field}' is nested more than {limit} levels deep (at {at})",
  BRINE_ERR_PROTO_FIELD_TOO_LARGE: "message '{type}': field '{field}' holds about {size} bytes of JSON, more than the limit of {limit}",
});

export type ProtocolErrorCode = keyof typeof protocolErrors.table;
