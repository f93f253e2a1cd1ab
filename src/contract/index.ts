export * from './protocols.js';
export * from './job.js';
export * from './stimulus.js';
export * from './study.js';
export * from './playlist.js';
export * from './payloads.js';
