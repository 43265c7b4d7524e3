// The one exhaustiveness guard of core: a `switch` over a union ends in `unreachable(value)`,
// so adding a member without handling it is a type error, and a value that slips past the
// types at run time fails loudly instead of being rendered or planned as something else.

export function unreachable(value: never): never {
  throw new Error(`unhandled value ${JSON.stringify(value)}`);
}
