import type { Matcher } from "../../domain/silences/model.js";

// Matchers are kept as JSON text in both stores: label names may hold `$` or `.`, which MongoDB
// refuses in keys of sub-documents on some servers.
export const matchersToText = (matchers: Matcher[]) => JSON.stringify(matchers);
export const matchersFromText = (text: string) => JSON.parse(text) as Matcher[];
