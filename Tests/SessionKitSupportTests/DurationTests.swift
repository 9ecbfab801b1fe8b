import Testing

@testable import SessionKitSupport

@Suite("Duration conversions")
struct DurationTests {
    @Test("seconds: whole and fractional parts, either sign")
    func seconds() {
        #expect(Duration.zero.seconds == 0)
        #expect(Duration.milliseconds(1_500).seconds == 1.5)
        #expect(Duration.seconds(86_400).seconds == 86_400)
        #expect(Duration.milliseconds(-250).seconds == -0.25)
        #expect(Duration.nanoseconds(1).seconds == 1e-9)
    }

    @Test("clampedNanoseconds: exact in range, 0 below it, Int64.max above it")
    func clampedNanoseconds() {
        #expect(Duration.zero.clampedNanoseconds == 0)
        #expect(Duration.nanoseconds(7).clampedNanoseconds == 7)
        #expect(Duration.milliseconds(1_500).clampedNanoseconds == 1_500_000_000)
        #expect(Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999).clampedNanoseconds == 1)
        #expect(Duration.seconds(-1).clampedNanoseconds == 0)
        #expect(Duration.milliseconds(-500).clampedNanoseconds == 0, "less than a second below zero")
        #expect(Duration.seconds(Int64.max).clampedNanoseconds == .max)
        #expect(Duration.seconds(9_223_372_036).clampedNanoseconds == 9_223_372_036_000_000_000)
        #expect(
            Duration(secondsComponent: 9_223_372_036, attosecondsComponent: 999_999_999_999_999_999)
                .clampedNanoseconds == .max, "the last addition overflows")
    }
}
