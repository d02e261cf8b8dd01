import { alreadyExists } from "@tocsin/core";

/** GitLab-style uniqueness failures; the REST body shows `fields`. */
export const usernameTaken = () =>
  alreadyExists("USERNAME_TAKEN", "Username has already been taken", { username: ["has already been taken"] });
export const emailTaken = () =>
  alreadyExists("EMAIL_TAKEN", "Email has already been taken", { email: ["has already been taken"] });
export const pathTaken = () => alreadyExists("PATH_TAKEN", "Path has already been taken", { path: ["has already been taken"] });
export const tokenTaken = () => alreadyExists("TOKEN_TAKEN", "Token has already been taken");
export const integrationTaken = () => alreadyExists("INTEGRATION_TAKEN", "Integration has already been taken");
export const endpointTaken = () => alreadyExists("ENDPOINT_TAKEN", "Endpoint identifier has already been taken");
