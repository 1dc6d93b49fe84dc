/** style.css, bundled as text (wrangler.toml [[rules]] type = "Text"): the page serves it. */
declare const style: string;
export default style;
