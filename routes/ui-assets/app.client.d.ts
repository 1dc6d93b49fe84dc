/** app.client.js, bundled as text (wrangler.toml [[rules]] type = "Text"): the page serves it, it does not run here. */
declare const script: string;
export default script;
