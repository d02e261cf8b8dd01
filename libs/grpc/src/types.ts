/** Type helpers over ts-proto's grpc-js service definitions. */
interface MethodDef {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: generic over every message type
  requestSerialize: (value: any) => Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: generic over every message type
  requestDeserialize: (value: Buffer) => any;
  // biome-ignore lint/suspicious/noExplicitAny: generic over every message type
  responseSerialize: (value: any) => Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: generic over every message type
  responseDeserialize: (value: Buffer) => any;
}

export type ServiceDef = { [method: string]: MethodDef };

export type ReqOf<M> = M extends { requestDeserialize: (value: Buffer) => infer R } ? R : never;
export type ResOf<M> = M extends { responseDeserialize: (value: Buffer) => infer R } ? R : never;

export type UnaryKeys<D> = { [K in keyof D]: D[K] extends { responseStream: false } ? K : never }[keyof D];
export type StreamKeys<D> = {
  [K in keyof D]: D[K] extends { requestStream: false; responseStream: true } ? K : never;
}[keyof D];
export type BidiKeys<D> = { [K in keyof D]: D[K] extends { requestStream: true; responseStream: true } ? K : never }[keyof D];
