import FunnelIngest
import IngestFixtures
import Testing

@Suite("File checksums (SHA-256)")
struct FileChecksumTests {
    @Test("digests match the FIPS 180-4 / NIST test vectors")
    func knownVectors() {
        #expect(FileChecksum.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(FileChecksum.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(FileChecksum.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(FileChecksum.hex(Array(("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
            + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8))
            == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test("a file of one million 'a', read in 1 MiB pieces, hashes like the standard vector")
    func millionA() throws {
        let scratch = try Scratch()
        let path = try scratch.file("a.csv", String(repeating: "a", count: 1_000_000))
        let (hex, size) = try FileChecksum.file(at: path)
        #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(size == 1_000_000)
        let big = try scratch.file("big.csv", String(repeating: "b", count: 3 << 20))
        #expect(try FileChecksum.file(at: big).hex == FileChecksum.hex([UInt8](repeating: 0x62, count: 3 << 20)))
    }

    @Test("a file's checksum is the hash of its bytes, with its size")
    func fileChecksum() throws {
        let scratch = try Scratch()
        let path = try scratch.file("x.csv", "abc")
        let (hex, size) = try FileChecksum.file(at: path)
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(size == 3)
    }
}
