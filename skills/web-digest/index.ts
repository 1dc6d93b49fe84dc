import { definePipeline } from "../../src/pipeline/worker.js";
import spec from "./pipeline.yaml";

/** web.digest: the pipeline of pipeline.yaml, served as a skill. */
export default definePipeline(spec);
