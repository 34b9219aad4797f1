// s3rver 3.7 ships CommonJS without types: what test/helpers/s3-server.ts uses of it.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    vhostBuckets?: boolean;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    /** Set by run(). */
    httpServer: Server;
    run(): Promise<AddressInfo | string | null>;
    close(): Promise<void>;
    reset(): void;
  }

  export = S3rver;
}
