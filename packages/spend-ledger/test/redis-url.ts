import { randomUUID } from "node:crypto";

/** The Redis the tests run against. */
export const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A key prefix no other test run uses. */
export function uniquePrefix(label: string): string {
  return `planfirst-test:${label}:${randomUUID()}`;
}
