/// A read-only mapping of a regular file (the owner of one `mmap` region, unmapped in `deinit`), so that Y4M frames
/// can be lent to the encoder in place instead of being copied out of the page cache by `read`.
///
/// The file may grow while it is read (a recorder still writing it): `refresh()` maps it again at its new size. It
/// may also shrink: `refresh()` then lowers `available`, and no byte past the file's end is ever touched (which
/// would raise SIGBUS).
final class MappedFile {
    private let fd: Int32
    /// The start of the mapping.
    private(set) var base: UnsafeRawPointer
    /// How many bytes are mapped.
    private(set) var mappedLength: Int
    /// How many bytes may be read: the file's size at the last `refresh()`, at most `mappedLength`.
    private(set) var available: Int

    /// Maps the regular file behind `fd`.
    /// - Parameters:
    ///   - fd: an open descriptor of a regular file (not owned: the caller closes it after releasing the mapping).
    ///   - size: the file's size now (more than zero).
    /// - Throws: `Y4MError.system` if it cannot be mapped.
    init(fd: Int32, size: Int) throws(Y4MError) {
        self.fd = fd
        base = try FileDescriptorIO.mapReadOnly(fd, length: size)
        mappedLength = size
        available = size
    }

    deinit {
        FileDescriptorIO.unmap(base, length: mappedLength)
    }

    /// Checks the file's size again (one `fstat`): maps it anew if it grew, lowers `available` if it shrank.
    /// - Throws: `Y4MError.system` if `fstat` or `mmap` fails.
    func refresh() throws(Y4MError) {
        let size = try FileDescriptorIO.regularFileSize(fd) ?? 0
        if size > mappedLength {
            let grown = try FileDescriptorIO.mapReadOnly(fd, length: size)
            FileDescriptorIO.unmap(base, length: mappedLength)
            base = grown
            mappedLength = size
        }
        available = min(size, mappedLength)
    }
}
