// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Testing

struct NMEASentenceTests {
    @Test func splitsAddressTalkerTypeAndFields() throws {
        let sentence = try NMEASentence("$GPHDT,274.07,T*03\r\n")
        #expect(sentence.address == "GPHDT")
        #expect(sentence.talker == "GP")
        #expect(sentence.type == "HDT")
        #expect(sentence.fieldCount == 2)
        #expect(sentence[1] == "274.07")
        #expect(sentence[2] == "T")
        #expect(sentence[3] == "")
        #expect(try sentence.number(1, "heading") == 274.07)
    }

    @Test func proprietarySentencesHaveNoTalker() throws {
        let sentence = try NMEASentence("$PASHR,204132.000,010.51,T,+00.39,-00.79,-00.84,0.151,0.075,0.555,1,0*03")
        #expect(sentence.isProprietary)
        #expect(sentence.talker == nil)
        #expect(sentence.type == "PASHR")
        #expect(try sentence.number(4, "roll") == 0.39)
        #expect(try sentence.number(5, "pitch") == -0.79)
    }

    @Test func checksumIsOptionalButVerifiedWhenPresent() throws {
        #expect(try NMEASentence("$GPHDT,274.07,T")[1] == "274.07")
        #expect(try NMEASentence("$GPHDT,274.07,T*03")[1] == "274.07")
        #expect(try NMEASentence("$gphdt,274.07,T*03".uppercased()).type == "HDT")
        let error = #expect(throws: LineDecodingError.self) { try NMEASentence("$GPHDT,274.07,T*04") }
        #expect(error?.reason == "checksum mismatch: sentence says 04, content gives 03")
        #expect(error?.code == .malformedInput)
    }

    @Test(arguments: [
        ("$GPHDT,274.07,T*0", "checksum '0' is not two hexadecimal digits"),  // truncated checksum
        ("$GPHDT,274.07,T*ZZ", "checksum 'ZZ' is not two hexadecimal digits"),
        ("GPHDT,274.07,T", "not an NMEA 0183 sentence: it does not start with '$' or '!'"),
        ("$G,1", "sentence address 'G' is not letters and digits"),
        ("$GP HDT,1", "sentence address 'GP HDT' is not letters and digits"),
        ("$GPHDT,27\u{0}4.07,T", "binary data in sentence (byte 0x0)"),
        ("$GPHDT,274.07,T\u{FF}", "binary data in sentence (byte 0xC3)"),
    ])
    func malformedSentencesNameTheirReason(line: String, reason: String) {
        let error = #expect(throws: LineDecodingError.self) { try NMEASentence(line) }
        #expect(error?.reason == reason)
    }

    @Test func overlongSentencesAreRejected() {
        let line = "$GPTXT," + String(repeating: "A", count: 300)
        let error = #expect(throws: LineDecodingError.self) { try NMEASentence(line) }
        #expect(error?.reason == "sentence of 307 characters is longer than 200")
    }

    @Test(arguments: [
        ("35abc9.5", "field 1 (heading) is not a number: '35abc9.5'"),
        ("1.2.3", "field 1 (heading) is not a number: '1.2.3'"),
        ("--1", "field 1 (heading) is not a number: '--1'"),
        ("1e5", "field 1 (heading) is not a number: '1e5'"),
        ("nan", "field 1 (heading) is not a number: 'nan'"),
        ("+", "field 1 (heading) is not a number: '+'"),
        ("0x10", "field 1 (heading) is not a number: '0x10'"),
        ("123456789012345678901", "field 1 (heading) is 21 characters long: '123456789012345678901'"),
    ])
    func numbersAreValidatedBeforeConversion(field: String, reason: String) throws {
        let sentence = try NMEASentence("$GPHDT,\(field),T")
        let error = #expect(throws: LineDecodingError.self) { try sentence.number(1, "heading") }
        #expect(error?.reason == reason)
    }

    @Test func emptyFieldsAreNilNotZero() throws {
        let sentence = try NMEASentence("$GPHDT,,T*1B")
        #expect(try sentence.number(1, "heading") == nil)
        #expect(sentence.character(1) == nil)
        #expect(try sentence.number(9, "absent") == nil)
    }
}
