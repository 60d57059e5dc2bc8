/**
 * True only when A and B describe the same JSON: each is assignable to the other and, at every level
 * of objects and arrays, they name the same keys (optional ones included, which assignability alone
 * lets slip). A route whose answer a domain function builds declares
 * `true satisfies Same<z.infer<typeof schema>, DomainType>`, so the response schema (and with it the
 * OpenAPI document and the renderer's generated wire types) cannot drift from what is sent.
 */
export type Same<A, B> = Mutual<A, B> extends true ? KeysAlike<NonNullable<A>, NonNullable<B>> : false;

type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** An object's keys as JSON names them: a string index signature's `number` is a string too, as in Record<string, …>. */
type JsonKeys<T> = keyof T extends infer K ? (K extends number ? `${K}` : K) : never;
/**
 * Without the keys that can only be undefined, which JSON leaves out: TypeScript gives each member of
 * an inferred union of object literals the others' keys as `?: undefined`.
 */
type Sent<T> = T extends object ? { [K in keyof T as [Exclude<T[K], undefined>] extends [never] ? never : K]: T[K] } : T;
type Element<T> = T extends readonly (infer E)[] ? E : never;
type KeysAlike<A, B> = [A] extends [never]
  ? [B] extends [never]
    ? true
    : false
  : [A] extends [readonly unknown[]]
  ? [B] extends [readonly unknown[]]
    ? KeysAlike<NonNullable<Element<A>>, NonNullable<Element<B>>>
    : false
  : [A] extends [object]
    ? [B] extends [object]
      ? Mutual<JsonKeys<Sent<A>>, JsonKeys<Sent<B>>> extends true
        ? { [K in keyof A]-?: KeysAlike<NonNullable<A[K]>, NonNullable<B[K & keyof B]>> }[keyof A] extends true
          ? true
          : false
        : false
      : false
    : true;
