/** The parser ships no types: what the metrics test reads of it. */
declare module "parse-prometheus-text-format" {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
