/** Who is calling: resolved from the bearer token or API key before any route runs. */
export interface Actor {
  userId: string;
  tokenId: string;
  isInstanceAdmin: boolean;
  /**
   * The operator's command line (never a token): acts as an admin of every workspace. Only the CLI builds such an
   * actor; the authentication hook never does.
   */
  isOperator?: boolean;
  /**
   * The caller's membership of the workspace named in the request's path, read with the token in the same statement
   * (one round trip fewer per request: issue 28). Only a membership that exists is carried; `access` asks the database
   * for anything else.
   */
  membership?: { slug: string; workspaceId: string; role: string };
}
