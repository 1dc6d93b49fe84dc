/**
 * Strict inputs: a skill's input refuses fields it does not declare (-32602 naming each one)
 * instead of dropping them, and its published JSON Schema says so (`additionalProperties: false`)
 * — a model learns from an error that names its misspelt argument, and a pipeline check can see
 * an unknown one given. JSON Schema (and zod's `z.object`) are open by default; skills are strict
 * by default, with `strictInput: false` to keep the open default.
 */
import { z } from "zod";

/**
 * The same schema with every object in it (nested ones too, through optional, nullable, default,
 * array, tuple and union) refusing undeclared fields. Objects that already say what to do with
 * other fields (`.passthrough()`, `.catchall(…)`, `.strict()`) keep it; anything else
 * (records, transforms, intersections) is left as it is. Descriptions and other metadata are
 * kept (the strict copy is a clone of the original, which it inherits them from).
 * @example strictInputOf(z.object({ text: z.string() })).safeParse({ text: "a", volume: 11 }).success // false
 */
export function strictInputOf<T extends z.ZodType>(schema: T): T {
  return strict(schema) as T;
}

function strict(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const clone = (changes: Record<string, unknown>) => schema.clone({ ...def, ...changes } as typeof def, { parent: true });
  if (schema instanceof z.ZodObject) {
    const { shape, catchall } = schema._zod.def;
    const strictShape = Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, strict(field as z.ZodType)]));
    return clone({ shape: strictShape, catchall: catchall ?? z.never() });
  }
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) {
    return clone({ innerType: strict(schema._zod.def.innerType as z.ZodType) });
  }
  if (schema instanceof z.ZodArray) return clone({ element: strict(schema._zod.def.element as z.ZodType) });
  if (schema instanceof z.ZodTuple) {
    const { items, rest } = schema._zod.def;
    return clone({ items: items.map((item) => strict(item as z.ZodType)), rest: rest ? strict(rest as z.ZodType) : rest });
  }
  if (schema instanceof z.ZodUnion) return clone({ options: schema._zod.def.options.map((option) => strict(option as z.ZodType)) });
  return schema;
}
