// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../api/client";
import { AddIntegrationForm } from "./AddIntegrationForm";
import type { NewIntegration } from "./api";
import type { Integration } from "./types";

/** What the API answers a create with (only the fields the form reads matter). */
const created = (input: NewIntegration): Integration => ({
  id: 7,
  name: input.name || "Prometheus",
  type: input.type,
  active: input.active,
  url: null,
  token: null,
  endpoint_identifier: null,
  created_at: "2026-11-25T00:00:00.000Z",
  updated_at: "2026-11-25T00:00:00.000Z",
});

function setup(onSubmit = vi.fn(async (input: NewIntegration) => created(input))) {
  const onCreated = vi.fn();
  const onCancel = vi.fn();
  render(<AddIntegrationForm onSubmit={onSubmit} onCreated={onCreated} onCancel={onCancel} />);
  return { user: userEvent.setup(), onSubmit, onCreated, onCancel };
}

afterEach(cleanup);

describe("AddIntegrationForm", () => {
  it("sends an HTTP endpoint's type, trimmed name and Active, then hands the created integration on", async () => {
    const { user, onSubmit, onCreated } = setup();
    const save = screen.getByRole("button", { name: "Save integration" });
    expect(save).toHaveProperty("disabled", true);
    expect(screen.queryByLabelText("2. Name integration")).toBeNull();

    await user.selectOptions(screen.getByLabelText("1. Select integration type"), "HTTP Endpoint");
    await user.type(screen.getByLabelText("2. Name integration"), "  Production  ");
    expect(screen.getByRole("checkbox", { name: "Active" })).toHaveProperty("checked", true);
    await user.click(screen.getByRole("checkbox", { name: "Active" }));
    await user.click(save);

    expect(onSubmit).toHaveBeenCalledTimes(1);
    expect(onSubmit).toHaveBeenCalledWith({ type: "http", name: "Production", active: false });
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalledWith(expect.objectContaining({ id: 7, type: "http" })));
  });

  it("sends Prometheus without a name field", async () => {
    const { user, onSubmit } = setup();
    await user.selectOptions(screen.getByLabelText("1. Select integration type"), "Prometheus");
    expect(screen.queryByLabelText("2. Name integration")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Save integration" }));
    expect(onSubmit).toHaveBeenCalledWith({ type: "prometheus", name: "", active: true });
  });

  it("refuses a blank name under the field, wired to it, without sending", async () => {
    const { user, onSubmit } = setup();
    await user.selectOptions(screen.getByLabelText("1. Select integration type"), "HTTP Endpoint");
    const name = screen.getByLabelText("2. Name integration");
    await user.type(name, "   ");
    await user.click(screen.getByRole("button", { name: "Save integration" }));

    expect(onSubmit).not.toHaveBeenCalled();
    const error = screen.getByRole("alert");
    expect(error.textContent).toBe("Enter a name for the integration.");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(name.getAttribute("aria-describedby")).toContain(error.id);

    await user.clear(name);
    await user.type(name, "Staging");
    await user.click(screen.getByRole("button", { name: "Save integration" }));
    expect(onSubmit).toHaveBeenCalledWith({ type: "http", name: "Staging", active: true });
    expect(screen.queryByText("Enter a name for the integration.")).toBeNull();
  });

  it("shows the API's refusal as the API words it, and keeps the form", async () => {
    const refuse = vi.fn(async (_input: NewIntegration): Promise<Integration> => {
      throw new ApiError(422, "name has already been taken", { message: { name: ["has already been taken"] } });
    });
    const { user, onCreated } = setup(refuse);
    await user.selectOptions(screen.getByLabelText("1. Select integration type"), "HTTP Endpoint");
    await user.type(screen.getByLabelText("2. Name integration"), "Production");
    await user.click(screen.getByRole("button", { name: "Save integration" }));

    expect((await screen.findByRole("alert")).textContent).toBe("name has already been taken");
    expect(onCreated).not.toHaveBeenCalled();
    expect(screen.getByLabelText("2. Name integration")).toHaveProperty("value", "Production");
    expect(screen.getByRole("button", { name: "Save integration" })).toHaveProperty("disabled", false);
  });

  it("cancels", async () => {
    const { user, onCancel, onSubmit } = setup();
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(onSubmit).not.toHaveBeenCalled();
  });
});
