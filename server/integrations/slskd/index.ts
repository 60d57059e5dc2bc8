export { SlskdClient } from './client.js';
export type { EnqueueFile, EnqueueResult, SearchRequest, SlskdClientOptions, SlskdStatus, WaitOptions } from './client.js';
export * from './schemas.js';
