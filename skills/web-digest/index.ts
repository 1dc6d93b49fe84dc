import { definePipeline } from "../../src/federation/pipeline/worker.js";
import spec from "./pipeline.yaml";

/** web.digest: the pipeline of pipeline.yaml, served as a skill. */
export default definePipeline(spec);
