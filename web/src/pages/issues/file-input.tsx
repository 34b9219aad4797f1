/** Where files come from on the issue page (contract 25.7): the file picker, a pasted screenshot, a drop. */
import { useRef, useState } from 'preact/hooks';

let pickerSeq = 0;

/** A file input (several files) whose label looks like a button; the input stays the focusable, labelled control. */
export function FilePicker({ label, onFiles }: { label: string; onFiles: (files: File[]) => void }) {
  const id = useRef(`file-pick-${++pickerSeq}`).current;
  return (
    <span class="file-pick">
      <input
        id={id}
        type="file"
        multiple
        class="sr-only"
        onChange={(e) => {
          const input = e.currentTarget;
          const files = [...(input.files ?? [])];
          input.value = ''; // the same file may be picked again
          if (files.length) onFiles(files);
        }}
      />
      <label for={id} class="button">
        {label}
      </label>
    </span>
  );
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The files of a paste, or none. A screenshot arrives as "image.png" (Chromium, Firefox) or without a name: it is
 * named after the moment instead ("Screenshot 2026-03-01 14.05.09.png"). `textWins`: a paste that also carries plain
 * text (copied from a document) is text, not files; used in the comment box.
 */
export function pastedFiles(data: DataTransfer | null, textWins = false): File[] {
  if (!data) return [];
  if (textWins && data.types.includes('text/plain')) return [];
  let files = [...data.files];
  if (!files.length) files = [...data.items].filter((i) => i.kind === 'file').flatMap((i) => i.getAsFile() ?? []);
  const now = new Date();
  const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ${pad(now.getHours())}.${pad(now.getMinutes())}.${pad(now.getSeconds())}`;
  return files.map((f, i) => {
    if (f.name && !/^image\.\w+$/i.test(f.name)) return f;
    const ext = f.type.startsWith('image/') ? (f.type.split('/')[1] ?? 'png').replace('jpeg', 'jpg').replace(/\W.*$/, '') : 'bin';
    return new File([f], `Screenshot ${stamp}${files.length > 1 ? ` (${i + 1})` : ''}.${ext}`, { type: f.type, lastModified: f.lastModified });
  });
}

export const carriesFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files');

/**
 * Drag-and-drop of files onto an element (the comment box): `over` while files are dragged over it, and its event
 * handlers to spread on it. Its events stay its own: the issue page's drop (attachments.tsx, on the document) does not
 * see them.
 */
export function useFileDrop(onFiles: (files: File[]) => void) {
  const [over, setOver] = useState(false);
  // dragenter/dragleave fire for every child crossed: the count of entries says when the pointer has really left.
  const depth = useRef(0);
  const own = (e: DragEvent) => {
    if (!carriesFiles(e)) return false;
    e.preventDefault();
    e.stopPropagation();
    return true;
  };
  return {
    over,
    props: {
      onDragEnter: (e: DragEvent) => {
        if (!own(e)) return;
        depth.current++;
        setOver(true);
      },
      onDragOver: (e: DragEvent) => {
        if (own(e) && e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      },
      onDragLeave: (e: DragEvent) => {
        if (!own(e)) return;
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      },
      onDrop: (e: DragEvent) => {
        depth.current = 0;
        setOver(false);
        if (!own(e)) return;
        const files = [...(e.dataTransfer?.files ?? [])];
        if (files.length) onFiles(files);
      },
    },
  };
}
