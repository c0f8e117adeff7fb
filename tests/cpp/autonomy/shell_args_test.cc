#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/autonomy/shell_args.h"

namespace pulse {
namespace {

TEST(ShellArgs, WordsSplitRedirectionsAndSeparators) {
  EXPECT_EQ(ShellWords("echo x>soul.md"), (std::vector<std::string>{"echo", "x", ">", "soul.md"}));
  EXPECT_EQ(ShellWords("a 2>>'b c'; d|e"), (std::vector<std::string>{"a", ">>", "b c", ";", "d", "|", "e"}));
  EXPECT_EQ(ShellWords("cat <in &>out"), (std::vector<std::string>{"cat", "<", "in", "&>", "out"}));
  EXPECT_EQ(ShellWords("so\"\"ul.md s\\oul.md"), (std::vector<std::string>{"soul.md", "soul.md"}));
}

TEST(ShellArgs, SoulWritesFromAShell) {
  for (const char* cmd : {"echo x>soul.md", "echo x >> ./SOUL.md", "printf x 1>soul.md", "dd if=a of=soul.md",
                          "curl -o soul.md https://x", "curl --output=soul.md https://x", "wget -O soul.md u",
                          "tee soul.md < x", "cat x | tee -a soul.md", "sed -i s/a/b/ soul.md", "mv x soul.md",
                          "mv soul.md x", "cp x soul.md", "rm soul.md", "truncate -s0 soul.md", "ln -sf x soul.md",
                          "python3 -c \"open('soul.md','w')\"", "perl -pi -e s/a/b/ soul.md",
                          "node -e \"fs.writeFileSync('soul.md', 'x')\"", "bash -c 'echo x > soul.md'",
                          "sh -c \"cat > so''ul.md\"", "cp x s?ul.md", "rm -f *", "cat > soul.md <<EOF\nx\nEOF",
                          "x=1 sudo tee soul.md"}) {
    EXPECT_TRUE(WritesSoulFromShell(cmd)) << cmd;
  }
  for (const char* cmd : {"cat soul.md", "grep -n goal soul.md | head", "wc -l soul.md", "cat soul.md > /tmp/copy",
                          "cp soul.md pulse/work/soul.md.draft", "echo x > pulse/work/soul.md.draft", "ls *.md",
                          "echo see soul.md", "ls pulse/work"}) {
    EXPECT_FALSE(WritesSoulFromShell(cmd)) << cmd;
  }
}

TEST(ShellArgs, ProtectedPathsInCommands) {
  for (const char* cmd : {"cat ../../.pulse/owner-token", "sqlite3 db/db.sqlite .dump", "cp db.sqlite /tmp",
                          "python3 -c \"print(open('.pulse/owner-token').read())\"", "cat .p*/owner-token",
                          "cat memory/goal.md", "bash -c 'cat \"../.pulse/owner-token\"'", "cat d?/d?.sqlite"}) {
    EXPECT_TRUE(MentionsProtectedPath(cmd)) << cmd;
  }
  for (const char* cmd : {"ls pulse/work", "echo db is fine", "cat memory-notes.md", "cat soul.md"}) {
    EXPECT_FALSE(MentionsProtectedPath(cmd)) << cmd;
  }
}

TEST(ShellArgs, ScriptedToolRoute) {
  for (const char* text : {"curl $PULSE_TOOL_URL/update_step", "curl \"${MCP_API_URL}\"", "echo $MCP_API_TOKEN",
                           "os.environ['PULSE_' + 'TOOL_URL']", "k='MCP' + '_API' + '_URL'",
                           "fetch('http://127.0.0.1:1/s/abc/tools/custom/x')", "curl x/s/abc/tools/update_step",
                           "curl localhost/mcp -H 'Authorization: Bearer t'", "u = '/tools/' + 'custom/'",
                           "P=PULSE_TOOL; curl \"$(eval echo \\$${P}_URL)\""}) {
    EXPECT_TRUE(CallsToolRoute(text)) << text;
  }
  for (const char* text : {"ls pulse/work", "curl https://example.com/api", "echo tools are custom"}) {
    EXPECT_FALSE(CallsToolRoute(text)) << text;
  }
}

}  // namespace
}  // namespace pulse
