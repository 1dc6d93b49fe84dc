/**
 * Tokens as a model counts them: OpenAI's o200k_base encoding (GPT-4o and later), through
 * js-tiktoken — how much of a model's context a tool list takes.
 */
import { Tiktoken } from "js-tiktoken/lite";
import o200k_base from "js-tiktoken/ranks/o200k_base";

let encoding: Tiktoken | undefined;

/**
 * The number of o200k_base tokens of a text.
 * @example tokensOf(JSON.stringify(tools)) // 612
 */
export function tokensOf(text: string): number {
  encoding ??= new Tiktoken(o200k_base);
  return encoding.encode(text).length;
}
