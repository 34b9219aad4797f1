-- subscription_notices.subscription_id gets its foreign key, in the tenant-key form of migration 0900: a notice
-- points at (workspace_id, subscription_id), so it can neither outlive its subscription nor name one of another
-- workspace. Deleting the subscription deletes its notices (they only say which notice was already sent for it).
--
-- Notices written before this migration are kept whatever they point at: the key is added NOT VALID (enforced for
-- every row written from now on) and validated in the same step only when every existing notice has its
-- subscription. A database that holds orphans (a subscription removed by hand) keeps them and an unvalidated key;
-- `ALTER TABLE subscription_notices VALIDATE CONSTRAINT subscription_notices_subscription_fkey` validates it once
-- they are gone. Nothing a user stored is deleted by a migration.

ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_workspace_id_id_key UNIQUE (workspace_id, id);

ALTER TABLE subscription_notices
  ADD CONSTRAINT subscription_notices_subscription_fkey FOREIGN KEY (workspace_id, subscription_id)
    REFERENCES subscriptions (workspace_id, id) ON DELETE CASCADE NOT VALID;

DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM subscription_notices n
    WHERE NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.workspace_id = n.workspace_id AND s.id = n.subscription_id)
  ) THEN
    ALTER TABLE subscription_notices VALIDATE CONSTRAINT subscription_notices_subscription_fkey;
  END IF;
END $$;
