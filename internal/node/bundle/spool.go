package bundle

import (
	"io"
	"os"
)

// spool is a scratch file next to the bundle (on the file system whose
// free space was checked), unlinked as soon as it is made: items pass
// through it on their way into the archive, so none is ever held in
// memory whole, and a killed run leaves nothing behind.
type spool struct {
	f *os.File
	// limit bounds what is kept; tail keeps the last limit bytes
	// (written at up to twice that, then compacted), else the first.
	limit int64
	tail  bool
	size  int64
	// dropped is set once anything was not kept; lineStart when what was
	// kept starts a line (the byte before it, dropped, was a line break).
	dropped   bool
	lineStart bool
}

// reset empties the spool for a new item.
func (s *spool) reset(limit int64, tail bool) error {
	s.limit, s.tail, s.size, s.dropped, s.lineStart = limit, tail, 0, false, false
	if err := s.f.Truncate(0); err != nil {
		return err
	}
	_, err := s.f.Seek(0, io.SeekStart)
	return err
}

// Write keeps what the limit allows and reports every byte as written, so
// that a command writing into it is never blocked or failed by the limit.
func (s *spool) Write(p []byte) (int, error) {
	n := len(p)
	if !s.tail {
		if room := s.limit - s.size; int64(len(p)) > room {
			p, s.dropped = p[:max(room, 0)], true
		}
	}
	if _, err := s.f.WriteAt(p, s.size); err != nil {
		return 0, err
	}
	s.size += int64(len(p))
	if s.tail && s.size > 2*s.limit {
		if err := s.compact(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// compact moves the last limit bytes to the start of the file.
func (s *spool) compact() error {
	buf := make([]byte, 1<<20)
	from := s.size - s.limit
	s.lineStart = byteAt(s.f, from-1) == '\n'
	for done := int64(0); done < s.limit; {
		n, err := s.f.ReadAt(buf[:min(int64(len(buf)), s.limit-done)], from+done)
		if n == 0 && err != nil {
			return err
		}
		if _, err := s.f.WriteAt(buf[:n], done); err != nil {
			return err
		}
		done += int64(n)
	}
	s.size, s.dropped = s.limit, true
	return s.f.Truncate(s.limit)
}

// reader returns what the spool kept (the last limit bytes with tail).
func (s *spool) reader() io.Reader {
	if s.tail && s.size > s.limit {
		s.dropped, s.lineStart = true, byteAt(s.f, s.size-s.limit-1) == '\n'
		return io.NewSectionReader(s.f, s.size-s.limit, s.limit)
	}
	return io.NewSectionReader(s.f, 0, s.size)
}
