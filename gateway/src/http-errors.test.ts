import { AppError, ERROR_CODES, type ErrorCode, notFound, paramInvalid, paramMissing } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import { insufficientScopeError, invalidTokenError, STATUS_BY_CODE, toHttpError } from "./http-errors.js";

const EXPECTED: Record<ErrorCode, number> = {
  CANCELLED: 500,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 503,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
  UNAUTHENTICATED: 401,
};

describe("AppError → HTTP", () => {
  it("covers every error code", () => {
    expect(Object.keys(STATUS_BY_CODE).sort()).toEqual([...ERROR_CODES].sort());
  });

  it.each(ERROR_CODES.map((code) => [code, EXPECTED[code]] as const))("%s → %i", (code, status) => {
    const mapped = toHttpError(new AppError(code, "SOME_REASON", "the gitlab text"));
    expect(mapped.status).toBe(status);
    if (status === 500) {
      expect(mapped.body).toEqual({ message: "500 Internal Server Error" });
      expect(mapped.unexpected).toBe(true);
    } else {
      expect(mapped.body).toEqual({ message: "the gitlab text" });
      expect(mapped.unexpected).toBe(false);
    }
    if (status === 503) expect(mapped.headers["Retry-After"]).toBe("5");
    else expect(mapped.headers["Retry-After"]).toBeUndefined();
  });

  it("renders parameter and routing errors as {error}", () => {
    expect(toHttpError(paramInvalid("new_note")).body).toEqual({ error: "new_note is invalid" });
    expect(toHttpError(paramMissing("email")).body).toEqual({ error: "email is missing" });
    expect(toHttpError(new AppError("INVALID_ARGUMENT", "PARAM_VALUE_INVALID", "plan does not have a valid value")).body).toEqual(
      {
        error: "plan does not have a valid value",
      },
    );
    const route = toHttpError(new AppError("NOT_FOUND", "ROUTE_NOT_FOUND", "404 Not Found"));
    expect(route).toMatchObject({ status: 404, body: { error: "404 Not Found" } });
  });

  it("renders field errors as {message: fields}", () => {
    const fields = { notification_email: ["must be an email you have verified"] };
    const mapped = toHttpError(new AppError("INVALID_ARGUMENT", "EMAIL_NOT_VERIFIED", "ignored", { fields }));
    expect(mapped).toMatchObject({ status: 400, body: { message: fields } });
  });

  it("keeps GitLab's resource messages", () => {
    expect(toHttpError(notFound("Project"))).toMatchObject({ status: 404, body: { message: "404 Project Not Found" } });
  });

  it("maps PAYLOAD_TOO_LARGE to 413", () => {
    const mapped = toHttpError(new AppError("RESOURCE_EXHAUSTED", "PAYLOAD_TOO_LARGE", "413 Request Entity Too Large"));
    expect(mapped).toMatchObject({ status: 413, body: { message: "413 Request Entity Too Large" } });
  });

  it("maps an expired or revoked acknowledge link to 410, a tampered one stays 401", () => {
    for (const reason of ["PAGE_TOKEN_EXPIRED", "PAGE_TOKEN_REVOKED"])
      expect(toHttpError(new AppError("FAILED_PRECONDITION", reason, "410 Gone - x"))).toMatchObject({
        status: 410,
        body: { message: "410 Gone - x" },
      });
    expect(toHttpError(new AppError("UNAUTHENTICATED", "PAGE_TOKEN_INVALID", "401 x")).status).toBe(401);
  });

  it("uses the error's retry hint for 503 and 429", () => {
    expect(
      toHttpError(new AppError("UNAVAILABLE", "AUTH_UNAVAILABLE", "x", { retryAfterSeconds: 12 })).headers["Retry-After"],
    ).toBe("12");
    expect(toHttpError(new AppError("DEADLINE_EXCEEDED", "SLOW", "x")).headers["Retry-After"]).toBe("5");
    expect(
      toHttpError(new AppError("RESOURCE_EXHAUSTED", "RATE_LIMITED", "429 Too Many Requests", { retryAfterSeconds: 30 })),
    ).toMatchObject({
      status: 429,
      headers: { "Retry-After": "30" },
    });
  });

  it("never echoes an unknown error", () => {
    const mapped = toHttpError(new Error("secret: password=hunter2"));
    expect(mapped).toEqual({ status: 500, body: { message: "500 Internal Server Error" }, headers: {}, unexpected: true });
    expect(toHttpError("a string").status).toBe(500);
    expect(JSON.stringify(toHttpError(new AppError("INTERNAL", "INTERNAL", "detail leaked?")).body)).not.toContain("leaked");
  });

  it("renders OAuth-style token errors", () => {
    const invalid = invalidTokenError('Token was "revoked".');
    expect(invalid.status).toBe(401);
    expect(invalid.body).toEqual({ error: "invalid_token", error_description: 'Token was "revoked".' });
    expect(invalid.headers["WWW-Authenticate"]).toBe(
      'Bearer realm="Tocsin", error="invalid_token", error_description="Token was revoked."',
    );
    const scope = insufficientScopeError("api");
    expect(scope).toMatchObject({
      status: 403,
      body: {
        error: "insufficient_scope",
        error_description: "The request requires higher privileges than provided by the access token.",
        scope: "api",
      },
    });
  });
});
