/** The workspace's storage against its plan (contract 25.3): "240 MB of 1 GB used" with a meter, or "unlimited". */
import { bytesText, GB, gigabytesText } from '../../bytes.js';
import { Badge } from '../../ui.js';

export function StorageUsage({ maxGb, used, reserved }: { maxGb: number; used: number; reserved: number }) {
  const held = reserved > 0 ? <small> ({bytesText(reserved)} held for uploads under way)</small> : null;
  if (maxGb === -1) {
    return (
      <>
        {bytesText(used)} used (unlimited){held}
      </>
    );
  }
  const limitBytes = maxGb * GB;
  const taken = used + reserved;
  const warning = used > limitBytes ? 'over the limit' : taken >= limitBytes ? 'storage full' : taken >= limitBytes * 0.9 ? 'almost full' : null;
  return (
    <>
      <span class="storage-text">
        {bytesText(used)} of {gigabytesText(maxGb)} used
      </span>{' '}
      <meter
        class="storage"
        min={0}
        max={Math.max(limitBytes, 1)}
        value={used}
        high={limitBytes * 0.9}
        optimum={0}
        aria-label={`Storage used of the plan's ${gigabytesText(maxGb)}`}
        aria-valuetext={`${bytesText(used)} of ${gigabytesText(maxGb)}`}
      />
      {held}
      {warning ? (
        <>
          {' '}
          <Badge tone="warn">{warning}</Badge>
        </>
      ) : null}
    </>
  );
}
