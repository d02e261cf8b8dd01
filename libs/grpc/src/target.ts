import type { ChannelOptions } from "@grpc/grpc-js";

/** A gRPC channel's target and the options that go with it. */
export interface ChannelTarget {
  target: string;
  options: ChannelOptions;
}

const ROUND_ROBIN: ChannelOptions = {
  "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/**
 * Turns a service address (PRODUCT.md section 1) into a grpc-js channel target:
 * - `host:port`: one server (grpc-js resolves the name; the first address that answers serves);
 * - `dns:///host:port`: every address the name resolves to (a Kubernetes headless Service),
 *   re-resolved as replicas come and go, calls spread round-robin over the connected ones;
 * - `10.0.0.1:50051,10.0.0.2:50051`: a fixed list of replicas (IP addresses or `localhost`),
 *   calls spread round-robin.
 * In both balanced forms a replica that dies drops out of the rotation as soon as its connection
 * fails, and rejoins when it answers again; reads that failed with UNAVAILABLE are retried on
 * another replica (createClient).
 */
export function channelTarget(address: string): ChannelTarget {
  if (address.startsWith("dns:")) return { target: address, options: ROUND_ROBIN };
  if (!address.includes(",")) return { target: address, options: {} };
  const entries = address.split(",").map((a) => a.trim().replace(/^localhost:/, "127.0.0.1:"));
  const scheme = entries.every((a) => a.startsWith("[")) ? "ipv6" : "ipv4";
  return { target: `${scheme}:${entries.join(",")}`, options: ROUND_ROBIN };
}

/** How many replicas an address names: the entries of a list, an assumed 2 behind `dns:///`, else 1. */
export function replicaCount(address: string): number {
  if (address.startsWith("dns:")) return 2;
  return address.split(",").filter((a) => a.trim()).length || 1;
}
