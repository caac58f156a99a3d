import { InvalidArgumentError } from "commander";

/** Commander parser for a TCP port (0..65535); a bad value is a usage error. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new InvalidArgumentError("must be a whole number from 0 to 65535");
  }
  return port;
}

/** Commander parser for an amount of US dollars (0 or more); a bad value is a usage error. */
export function parseUsd(value: string): number {
  const amount = Number(value);
  if (value.trim() === "" || !Number.isFinite(amount) || amount < 0) {
    throw new InvalidArgumentError("must be a number of US dollars, 0 or more");
  }
  return amount;
}

/** Commander parser for a positive number of seconds; a bad value is a usage error. */
export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (value.trim() === "" || !Number.isFinite(seconds) || seconds <= 0) {
    throw new InvalidArgumentError("must be a number of seconds greater than 0");
  }
  return seconds;
}

/** Commander parser for a repeatable, comma-separated option: appends each item to `previous`. */
export function collectList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  ];
}
