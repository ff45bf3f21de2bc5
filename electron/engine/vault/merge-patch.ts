const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 7386 JSON Merge Patch: objects merge key by key, null deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    // defineProperty, not assignment: a `__proto__` key in the data is data, not the object's prototype.
    else {
      const merged = mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value);
      Object.defineProperty(result, key, { value: merged, enumerable: true, writable: true, configurable: true });
    }
  }
  return result;
}
