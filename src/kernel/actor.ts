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
}
