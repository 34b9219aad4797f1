/** Who is calling: resolved from the bearer token or API key before any route runs. */
export interface Actor {
  userId: string;
  tokenId: string;
  isInstanceAdmin: boolean;
}
