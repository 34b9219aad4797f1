/** Sizes in human units, as the contract counts them (25.3: 1 GB = 1,073,741,824 bytes). */

/** 1 GB = 1,073,741,824 bytes (contract 25.3). */
export const GB = 1_073_741_824;
const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/** Bytes in the binary units the contract counts with (1 KB = 1,024 bytes): "512 bytes", "1.5 MB", "240 MB", "1 GB". */
export function bytesText(bytes: number): string {
  let value = bytes;
  let unit = 0;
  const digits = () => (unit === 0 || value >= 10 ? 0 : 1);
  // Up a unit when the value, as it will be shown, reaches 1,024 (1,023.97 MB reads "1 GB", not "1,024 MB").
  while (unit < UNITS.length - 1 && Number(value.toFixed(digits())) >= 1024) {
    value /= 1024;
    unit++;
  }
  return new Intl.NumberFormat(undefined, {
    style: 'unit',
    unit: UNITS[unit],
    unitDisplay: unit === 0 ? 'long' : 'short',
    maximumFractionDigits: digits(),
  }).format(value);
}

/** A plan's storage in whole gigabytes: "1 GB", "1,000 GB". */
export function gigabytesText(gb: number): string {
  return new Intl.NumberFormat(undefined, { style: 'unit', unit: 'gigabyte', unitDisplay: 'short' }).format(gb);
}
