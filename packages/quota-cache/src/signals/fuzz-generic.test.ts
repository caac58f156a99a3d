// Fuzz property of the generic family: any OpenAI-compatible server (Groq, Cerebras, Mistral,
// DeepSeek…).
import { describe } from "vitest";
import { itKeepsResponseInvariants } from "./fuzz-invariants";
import { parseGenericResponse } from "./generic";

describe("fuzz: every parser is total and keeps its invariants", () => {
  itKeepsResponseInvariants("parseGenericResponse", parseGenericResponse, [
    "groq",
    "cerebras",
    "mistral",
    "deepseek",
  ]);
});
