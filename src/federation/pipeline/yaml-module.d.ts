/** A pipeline.yaml imported as text (wrangler.toml `[[rules]] type = "Text"`). */
declare module "*.yaml" {
  const text: string;
  export default text;
}
