// headingd
// SPDX-License-Identifier: Apache-2.0

extension Headingd {
    /// The discussion `--help` and the man page print after the options' summary.
    static let discussion = """
        With no options, headingd runs the built-in simulation (no hardware needed): a vessel \
        swinging through north in steady turns, with noise and a 3 s sensor dropout every 30 s \
        (each raises a deviceLost fault; headings resume after it). \
        Headings go to standard output; faults and authorization changes go to standard error, \
        one line each. headingd runs until SIGINT or SIGTERM, or until --count headings, and \
        then exits 0 after a clean shutdown; a shutdown stuck for 1.5 s (a blocked read or write) \
        is cut short.

        --source replay:PATH replays a recording: raw NMEA 0183 (HDT, HDG, HDM, THS, PASHR, \
        PTNTHTM; RMC and VTG course over ground from 0.5 m/s, about 1 knot), gpsd JSON as 'gpspipe -w' writes \
        it (ATT, TPV, DEVICE, ERROR), or gpsd's regression logs, mixed freely. A sentence must \
        carry every field its type defines (a line cut short is malformed, never a heading); one \
        without a checksum is accepted unless --require-checksum. Each bad line is \
        reported as 'FILE:LINE: reason' and skipped; the lines around it are delivered (past 100 \
        of one fault code, the rest are summarised with their count and the last one's place). At the \
        end of the file headingd prints a summary on standard error and exits 0 (when every \
        source is a replay; beside a live source, the others carry on).

        --source gpsd://HOST:PORT[/DEVICE] (or just 'gpsd' for gpsd://127.0.0.1:2947) reads a \
        live gpsd over TCP: its JSON reports and its raw NMEA, which headingd parses itself \
        (gpsd 3.22 drops THS and misreads HDG). When gpsd is down or goes away, each failed \
        attempt is a sourceUnavailable fault saying when the next one is (0.25 s doubling to \
        5 s, jittered), forever, until SIGINT or SIGTERM. A gpsd that streams without a heading \
        for --stale-after seconds raises one stale fault saying what arrived (gpsd 3.22 drops a \
        gyrocompass's HE talker).

        NMEA 0183 straight from the instruments, read by the same decoder as a replay: \
        --source serial:///dev/ttyUSB0?baud=4800 (raw 8N1; 4800, 9600, 19200, 38400, 57600, \
        115200 or auto, which tries them until checksummed sentences arrive), tcp://HOST:PORT (a \
        multiplexer or WiFi gateway; reconnects with backoff, and after no_data_timeout=SECONDS \
        without a byte, 10 by default, 0 for never), udp://:PORT or udp://ADDRESS:PORT (a \
        multicast group is joined; each sender's lines are kept apart), stdin: (whose end ends \
        headingd when every source is a replay or stdin:), or \
        exec:/path/to/driver?args=ARG,ARG (a program's standard output; its standard error is \
        logged; restarted with backoff when it exits; its whole process group is ended with it). A device that goes away is a deviceLost \
        fault and is reopened with backoff; one this user may not read is permissionDenied, then \
        authorization denied. Lines over 1 KiB, and sentences cut short, are malformedInput \
        faults. A flood of bad lines is counted, not logged line by line: per source and fault \
        code the first is reported, then at most one summary every 10 s with the count by kind \
        and the last reason, and one line once the source is clean again for 10 s. Septentrio $PSSN,HRP and Unicore #UNIHEADINGA are read as dual-antenna GNSS \
        headings, and format=ubx reads u-blox UBX-NAV-RELPOSNED frames among the NMEA lines. \
        talker=HE,... and sentences=HDT,... (on streams and replays) take one instrument of a \
        multiplexed feed: the same feed may stand at several places in the list, and is read once.

        NMEA 2000 (PGN 127250 Vessel Heading; 129026 course over ground from a device that sends \
        no heading; 127257 pitch and roll; 129025, 127258 and 126992 as context): \
        --source socketcan://can0 (a PiCAN-M or Waveshare HAT, a CANable; listen-only: headingd \
        claims no address and sends nothing on the bus; the interface down or bus-off is a \
        deviceLost fault, and it is reopened when up), \
        serial:///dev/ttyUSB0?baud=115200&format=actisense (an Actisense NGT-1, sent its start-up \
        message at open and every 20 s), tcp://HOST:1457?format=ydraw, udp://:1457?format=ydraw \
        or serial:...?format=ydraw (a Yacht Devices YDWG-02, YDEN-02 or YDNU-02 in RAW mode), and \
        replays of candump -L logs, candump text, YD RAW logs and canboat's CSV, found from their \
        content. Each device on the bus is a source of its own: device=ADDRESS (0 to 253) or \
        device=NAME (its 64-bit ISO NAME, 0x hex, at whatever address it claims), on every NMEA \
        2000 transport and replay; without device=, the first device heard sending headings is \
        taken and the log names it, with its maker, model and NAME once they are heard. Give the \
        same bus twice with two devices to rank them: failover and the disagreement fault work \
        between them as between any sources.

        --source iio: reads the e-compass on the board through Linux's IIO subsystem: the \
        first magnetometer under /sys/bus/iio/devices, tilt-compensated by the accelerometer \
        beside it and steadied by the gyroscope beside it; \
        iio://DEVICE?accel=DEVICE&gyro=DEVICE&rate=HZ&orientation=FORM&calibration=FILE chooses \
        them (iio:deviceN, a name or a label; rate default 25; orientation level, upside-down, \
        turned-right, turned-left, turned-around or a matrix a,b,c;d,e,f;g,h,i). Each device whose \
        driver has a buffer and a trigger is read as whole scans from /dev/iio:deviceN (its axes \
        sampled together; under the shipped unit with the iio-buffer drop-in), the rest directly \
        (the *_raw files), as buffer=false reads every one; the log says which and why; \
        trigger=NAME gives the buffered devices that trigger (an hrtimer one, say). Its heading is \
        magnetic, made true by the variation. Its calibration comes from headingd calibrate \
        (the state directory's calibration-NAME.json unless calibration= names one; read again on \
        SIGHUP), its hard iron refined at sea unless calibration_refine=false; without one it \
        raises one uncalibrated fault and its headings say an accuracy of 30 degrees. A field that is \
        not the Earth's alone (a magnet or a motor beside the compass: strength or dip beyond the \
        calibration's bounds, or a turn the gyroscope does not see) raises a magneticDisturbance \
        fault within a second; the gyroscope then carries the heading for at most 30 s, its accuracy \
        widened (without one, the magnetometer's own heading says 90 degrees), and the calibration is \
        not refined until it is over. Near the magnetic \
        poles (the World Magnetic Model's horizontal field under 2,000 nT) every magnetic source \
        raises a magneticBlackout fault.

        Several --source options, best first: headings come from the best healthy source. A \
        source silent for --stale-after seconds raises a stale fault and, when it is the one \
        delivering, headings fail over at once to the next healthy one; they fail back only after \
        the better source has delivered again for --fail-back-hold seconds. Switches (sourceChanged) \
        and recoveries (recovered) are notices on standard error. A source may end in \
        ?offset=DEGREES&smoothing=SECONDS&deviation=HEADING:DEVIATION,... for its installation \
        (deviation=learn learns the compass's card against a true source beside it, and keeps it; \
        'headingd deviation' measures one from a recording or a swing). \
        When a device gives only magnetic (or only true) heading, the other is filled in from the \
        variation it sent, else from the World Magnetic Model 2025 at the last reported position \
        (or --position); JSON says which in variationOrigin.

        Under systemd (Type=notify, see systemd/headingd.service) headingd sends READY=1, \
        STATUS= and STOPPING=1 on $NOTIFY_SOCKET, and WATCHDOG=1 every half $WATCHDOG_USEC; \
        with $JOURNAL_STREAM set, each line starts with its syslog priority (<6> headings, \
        <5> notices, <4> faults, <3> errors).

        Settings come from /etc/headingd/headingd.toml (or --config PATH), then \
        conf.d/*.toml beside it, then HEADINGD_* environment variables, then these flags; \
        --check-config prints the result. SIGHUP reads them again (a broken file keeps the \
        running settings).

        --nmea-tcp HOST:PORT serves NMEA 0183 heading sentences (HDT, HDG, THS by default) over \
        TCP to chart plotters, autopilots and gpsd; 127.0.0.1:10110 by convention, off by default. \
        --nmea-udp HOST:PORT,... sends them in UDP datagrams (a broadcast address broadcasts); \
        --nmea-serial DEVICE writes them to a serial line (4800 baud unless --nmea-serial-baud).

        --signalk serves headings as a Signal K source on 127.0.0.1:8375 (--signalk-listen): \
        discovery at /signalk, the model at /signalk/v1/api/, deltas on the WebSocket \
        /signalk/v1/stream with subscribe and unsubscribe; faults are notifications under \
        notifications.navigation.heading.

        --metrics serves Prometheus metrics at /metrics (text format 0.0.4): each source's health, \
        headings and faults, the source steering, reloads, each output's clients and messages; on \
        the Signal K listener when it runs, else on 127.0.0.1:9947 (--http-listen). Off by default.

        --status serves a status page at / (the heading on a compass rose, STALE or NO HEADING, \
        each source, the active faults, the outputs; live), /status.json and /status/events, on the \
        same listener as the metrics. Off by default (the installed configuration turns it on). \
        'headingd status' asks it and prints the heading, the source steering, each source, the \
        faults and the outputs (--json for the report itself); it exits 0 when a healthy source \
        delivers, 3 when none does, 69 when no headingd answers ('headingd status --help').

        --mqtt mqtt://HOST[:PORT] (or mqtts:// with --mqtt-ca-file) publishes headingd's status \
        (with a last will), the heading (at most --mqtt-rate a second) and each fault's Signal K \
        notification to the fleet's MQTT broker through libmosquitto; fault changes wait in an \
        on-board journal until the broker acknowledges them. The password is read from \
        --mqtt-password-file or systemd's credential mqtt-password, never given as an option.

        --nmea2000 socketcan://can0 (or tcp://HOST:1457?format=ydraw, a Yacht Devices gateway in \
        RAW mode) makes headingd a node on the NMEA 2000 bus: it claims an address (the last one it \
        held, kept with its NAME's unique number in $STATE_DIRECTORY/nmea2000-node.json; NAME class \
        40 function 160, heading sensors), answers a plotter's requests for 60928, 126996, 126464 \
        and 126998 (a NAK for anything else asked of it), sends a heartbeat every 60 s, and each \
        heading as 127250 Vessel Heading (true when known, with the variation) with 127251 Rate of \
        Turn and 127257 Attitude when known, and 127258 Magnetic Variation once a second; at most \
        --nmea2000-rate (10) a second, nothing while no heading comes. Through an Actisense NGT-1 \
        (serial:///dev/ttyUSB0?format=actisense) only the data goes, under the NGT-1's own address \
        and NAME, and only the PGNs enabled in its transmit list.

        Exit status: 0 on success; 64 for bad usage (an unknown option, an option without its value, a \
        value given to a flag); 78 (EX_CONFIG) for a value of the wrong type, out of range or otherwise \
        wrong, whether it came from a file, the environment or an option (a value may start with '-' as a separate argument: --position -33.86,151.21); 65 with --strict when any line was \
        skipped or the file is in an unsupported (binary) format; 66 when the file cannot be read; 69 when \
        an output cannot be opened (a port in use, an unknown host); 74 when headings cannot be written to \
        standard output.
        """
}
