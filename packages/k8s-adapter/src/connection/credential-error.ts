// The one error a request raises when it has no credential to send: a failing exec plugin or
// an unreadable token file. classifyApiError keeps its message (ours, naming the command or
// file and never what they printed), so it reaches the log and the CLI as written.
export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}
