/** Types of scripts/dist-stamp.mjs (test/global-setup.ts imports it). */
export declare function distInputs(root: string): string;
export declare function distMatches(root: string, inputs: string): boolean;
export declare function writeDistStamp(root: string, inputs: string): void;
