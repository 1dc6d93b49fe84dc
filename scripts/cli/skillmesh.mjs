#!/usr/bin/env node
// `npx skillmesh …`: loads the TypeScript CLI through tsx (Node 20 cannot run .ts itself).
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
