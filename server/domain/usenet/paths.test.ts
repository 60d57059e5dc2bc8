import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { localCompletedPath } from './paths.js';

describe('localCompletedPath', () => {
  it('trusts no reported path when no completed path is set or confirmed', () => {
    expect(localCompletedPath('/downloads/complete/music/x', '/downloads/complete', '')).toBeNull();
    // Confirmed: the client's completed folder is the same path here.
    expect(localCompletedPath('/downloads/complete/music/x', '/downloads/complete', '/downloads/complete')).toBe('/downloads/complete/music/x');
    expect(localCompletedPath('/home/me/Music', '/downloads/complete', '/downloads/complete')).toBeNull();
  });

  it("maps the part under the client's completed folder onto the completed path", () => {
    expect(localCompletedPath('/downloads/complete/music/Radiohead - OK', '/downloads/complete/', '/mnt/nas/complete')).toBe(
      path.join('/mnt/nas/complete', 'music', 'Radiohead - OK'),
    );
    expect(localCompletedPath('C:\\Downloads\\complete\\music\\a', 'C:\\Downloads\\complete', '/mnt/c')).toBe(path.join('/mnt/c', 'music', 'a'));
    expect(localCompletedPath('/downloads/complete', '/downloads/complete', '/mnt/c')).toBe('/mnt/c');
  });

  it('refuses paths outside the completed folder or climbing out of it', () => {
    expect(localCompletedPath('/downloads/completed-other/x', '/downloads/complete', '/mnt/c')).toBeNull();
    expect(localCompletedPath('/etc/passwd', '/downloads/complete', '/mnt/c')).toBeNull();
    expect(localCompletedPath('/downloads/complete/../../etc', '/downloads/complete', '/mnt/c')).toBeNull();
    expect(localCompletedPath('/x', '', '/mnt/c')).toBeNull();
  });
});
