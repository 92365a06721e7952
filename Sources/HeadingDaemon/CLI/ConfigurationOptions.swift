// headingd
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// The options that say where the configuration is, and whether only to check it.
struct ConfigurationOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The main configuration file; drop-ins are read from conf.d/*.toml beside it. (default: \(SettingsLoader.defaultMainFile))",
            valueName: "path"
        )
    )
    var config: String?

    @Flag(
        name: .customLong("check-config"),
        help: "Check the configuration (the file given after this flag, or the usual files) with the environment and options, print the effective settings, and exit: 0 when valid, 78 (EX_CONFIG) when not."
    )
    var checkConfig = false

    @Flag(
        name: .customLong("default-config"),
        help: "Print the configuration file headingd ships (/etc/headingd/headingd.toml as installed: every setting with what it does and its default) and exit."
    )
    var defaultConfig = false

    // Not CommandConfiguration's version: with it ArgumentParser's man page grows a "help"
    // subcommand headingd does not have.
    @Flag(help: "Print headingd's version and exit.")
    var version = false

    @Argument(help: ArgumentHelp("With --check-config: the main configuration file to check.", valueName: "path"))
    var checkConfigPath: String?

    func validate() throws {
        if checkConfigPath != nil, !checkConfig {
            throw ValidationError("A PATH argument is only accepted after --check-config.")
        }
    }

    /// The main configuration file to read.
    var mainFile: String { checkConfigPath ?? config ?? SettingsLoader.defaultMainFile }

    /// Whether the main file must exist: it was named.
    var mainFileIsRequired: Bool { checkConfigPath != nil || config != nil }
}
