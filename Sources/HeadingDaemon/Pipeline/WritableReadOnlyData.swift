// headingd
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
import HeadingPorts
#endif

/// The executable's `.rodata` when the link left it writable, and which of its pages are still
/// the file's own: the part of start-up's pages ``StartupPageRelease`` cannot find by mapping.
///
/// Swift's objects (and the static Swift runtime and Foundation the package links in) carry a
/// `.rodata` marked writable, so the linker puts the whole section — 38 MB in the packaged binary,
/// ICU's data and Foundation's tables among it — into the writable segment, beside `.data`,
/// `.got` and `.bss`. That mapping is writable, so it is never released whole, and start-up left
/// about 1.9 MB of it resident. Nothing writes `.rodata` once the process runs (its relocations
/// are applied before `main`; a page they wrote is a private copy, no longer the file's), so the
/// pages of it that are still the file's can be given back like code: `/proc/self/pagemap` tells
/// them apart (present, and a file page rather than anonymous). Only whole pages inside the
/// section are considered, so `.data` and the rest of the mapping are never touched.
enum WritableReadOnlyData {
    /// The section's address range in this process, when the executable is a 64-bit
    /// little-endian ELF whose `.rodata` is writable; `nil` otherwise (nothing to do).
    static func range() -> StartupPageRelease.Mapping? {
        let descriptor = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let read = { (offset: Int, count: Int) -> [UInt8]? in
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got == count ? bytes : nil
        }
        guard let section = rodata(read: read), section.isWritable else { return nil }
        guard let headers = programHeadersAddress(), headers >= section.programHeaders else { return nil }
        // A position-independent executable is loaded at a bias: where its program headers
        // are, less where the file says they are.
        let bias = headers - section.programHeaders
        let (start, overflow) = bias.addingReportingOverflow(section.address)
        guard !overflow, start <= UInt.max - section.size else { return nil }
        return StartupPageRelease.Mapping(start: start, end: start + section.size)
    }

    /// Where `.rodata` lies in the file's addresses, whether it is writable, and the address the
    /// program headers are loaded at (`PT_PHDR`), from the ELF headers `read` gives: every
    /// count and offset checked, `nil` for anything that is not a 64-bit little-endian ELF
    /// with both.
    /// - Parameter read: The bytes at an offset of the file, or `nil` past its end.
    static func rodata(read: (_ offset: Int, _ count: Int) -> [UInt8]?) -> (address: UInt, size: UInt, isWritable: Bool, programHeaders: UInt)? {
        guard let header = read(0, 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2, header[5] == 1 else { return nil }
        let programOffset = Int(clamping: value(header, at: 32, bytes: 8))
        let sectionOffset = Int(clamping: value(header, at: 40, bytes: 8))
        let programSize = Int(value(header, at: 54, bytes: 2))
        let programCount = Int(value(header, at: 56, bytes: 2))
        let sectionSize = Int(value(header, at: 58, bytes: 2))
        let sectionCount = Int(value(header, at: 60, bytes: 2))
        let namesIndex = Int(value(header, at: 62, bytes: 2))
        guard programSize == 56, sectionSize == 64, namesIndex < sectionCount,
            let programs = read(programOffset, programSize * programCount),
            let sections = read(sectionOffset, sectionSize * sectionCount)
        else { return nil }
        // PT_PHDR: where the program headers are in memory, in the file's addresses.
        guard let phdr = (0..<programCount).first(where: { value(programs, at: $0 * programSize, bytes: 4) == 6 }) else { return nil }
        let programHeaders = UInt(value(programs, at: phdr * programSize + 16, bytes: 8))
        // The section names: at most 64 KiB of them.
        let namesOffset = Int(clamping: value(sections, at: namesIndex * sectionSize + 24, bytes: 8))
        let namesSize = Int(clamping: value(sections, at: namesIndex * sectionSize + 32, bytes: 8))
        guard namesSize <= 1 << 16, let names = read(namesOffset, namesSize) else { return nil }
        let wanted = Array(".rodata".utf8) + [0]
        for index in 0..<sectionCount {
            let base = index * sectionSize
            let name = Int(value(sections, at: base, bytes: 4))
            guard name <= names.count - wanted.count, names[name..<(name + wanted.count)].elementsEqual(wanted) else { continue }
            let flags = value(sections, at: base + 8, bytes: 8)
            let address = UInt(value(sections, at: base + 16, bytes: 8))
            let size = UInt(value(sections, at: base + 32, bytes: 8))
            // SHF_WRITE is 1, SHF_ALLOC 2: a section not loaded is not in memory at all.
            guard flags & 2 != 0 else { return nil }
            return (address, size, flags & 1 != 0, programHeaders)
        }
        return nil
    }

    /// The page-aligned runs of `range` whose pages are present and still the file's, by
    /// `/proc/self/pagemap` (read before anything is released).
    /// - Parameters:
    ///   - range: The section's addresses.
    ///   - pageSize: The page size.
    static func filePages(in range: StartupPageRelease.Mapping, pageSize: UInt) -> [StartupPageRelease.Mapping] {
        // Whole pages only: the pages at the ends may hold other sections' bytes.
        let first = (range.start + pageSize - 1) / pageSize
        let end = range.end / pageSize
        guard end > first, end - first <= 1 << 20 else { return [] }
        let descriptor = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        let count = Int(end - first)
        var entries = [UInt64](repeating: 0, count: count)
        let wanted = count * MemoryLayout<UInt64>.size
        let got = entries.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(first) * 8) }
        guard got == wanted else { return [] }
        return runs(of: entries, firstPage: first, pageSize: pageSize)
    }

    /// The runs of consecutive pages whose pagemap entries say present (bit 63) and a file page
    /// (bit 61: not a private copy), as address ranges.
    /// - Parameters:
    ///   - entries: One pagemap entry per page, from `firstPage` on.
    ///   - firstPage: The first entry's page number.
    ///   - pageSize: The page size.
    static func runs(of entries: [UInt64], firstPage: UInt, pageSize: UInt) -> [StartupPageRelease.Mapping] {
        var result: [StartupPageRelease.Mapping] = []
        var runStart: UInt?
        for (offset, entry) in entries.enumerated() {
            let page = firstPage + UInt(offset)
            let isFilePage = entry & (1 << 63) != 0 && entry & (1 << 61) != 0
            if isFilePage, runStart == nil { runStart = page }
            if !isFilePage, let start = runStart {
                result.append(.init(start: start * pageSize, end: page * pageSize))
                runStart = nil
            }
        }
        if let start = runStart { result.append(.init(start: start * pageSize, end: (firstPage + UInt(entries.count)) * pageSize)) }
        return result
    }

    /// Where this process's program headers are (`AT_PHDR` of `/proc/self/auxv`, pairs of
    /// type and value up to `AT_NULL`).
    static func programHeadersAddress() -> UInt? {
        guard let auxv = WholeFile.read(path: "/proc/self/auxv", limit: 1 << 16) else { return nil }
        for pair in stride(from: 0, to: auxv.count - 15, by: 16) {
            let type = value(auxv, at: pair, bytes: 8)
            if type == 0 { return nil }
            if type == 3 { return UInt(value(auxv, at: pair + 8, bytes: 8)) }  // AT_PHDR
        }
        return nil
    }

    /// A little-endian unsigned integer of `bytes` bytes at `offset` (0 past the end).
    private static func value(_ data: [UInt8], at offset: Int, bytes: Int) -> UInt64 {
        guard offset >= 0, offset <= data.count - bytes else { return 0 }
        var result: UInt64 = 0
        for index in (0..<bytes).reversed() { result = result << 8 | UInt64(data[offset + index]) }
        return result
    }
}
