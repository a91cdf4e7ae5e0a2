export { convertTaskmaster, DEFAULT_TAG, type TaskmasterImport, type TaskmasterOptions } from "./convert.js";
export { parseTaskmasterFile } from "./read.js";
export {
  describeStatusMapping,
  mapPriority,
  mapStatus,
  type StatusMapping,
  TASKMASTER_PRIORITIES,
  TASKMASTER_STATUSES,
} from "./statuses.js";
