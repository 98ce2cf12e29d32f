package bootstrapsh

// The syntax tree of a script: just enough of bash's grammar to know, for
// every simple command, whether it runs unconditionally in the script's own
// shell, and what its words are.

// list is a sequence of and-or lists (separated by ";", "&" or newlines).
type list []andOr

// andOr is pipelines joined by && and ||.
type andOr struct {
	pipelines []pipeline
	// ops[i] joins pipelines[i] and pipelines[i+1].
	ops        []string
	opPos      []position
	background bool
}

// pipeline is commands joined by | (or |&).
type pipeline struct {
	negated bool
	cmds    []command
}

// command is a simpleCommand, a compound or a funcDef.
type command interface{ start() position }

// assignment is NAME=value or NAME+=value.
type assignment struct {
	name     string
	appendOp bool
	value    []part
	pos      position
	// array is set for NAME=(…), whose value is never known.
	array bool
}

// redirect is one redirection.
type redirect struct {
	op     string
	target word
	doc    *heredoc
	pos    position
}

// heredoc is a here-document; body is filled when its line ends.
type heredoc struct {
	delim    string
	stripTab bool
	body     string
	bodyLine int
}

// simpleCommand is assignments, words and redirections.
type simpleCommand struct {
	assigns []assignment
	args    []word
	redirs  []redirect
	pos     position
}

func (c *simpleCommand) start() position { return c.pos }

// compoundKind names a compound command.
type compoundKind string

// Compound commands.
const (
	kindIf       compoundKind = "if statement"
	kindFor      compoundKind = "for loop"
	kindSelect   compoundKind = "select loop"
	kindWhile    compoundKind = "while loop"
	kindUntil    compoundKind = "until loop"
	kindCase     compoundKind = "case statement"
	kindGroup    compoundKind = "{ … } group"
	kindSubshell compoundKind = "( … ) subshell"
	kindArith    compoundKind = "(( … )) arithmetic command"
	kindCond     compoundKind = "[[ … ]] test"
)

// compound is a compound command; lists holds every nested list in
// source order (conditions and bodies alike).
type compound struct {
	kind compoundKind
	// loopVar is the variable a for/select loop assigns.
	loopVar string
	lists   []list
	redirs  []redirect
	pos     position
}

func (c *compound) start() position { return c.pos }

// funcDef defines a function; its body runs only when it is called.
type funcDef struct {
	name string
	body command
	pos  position
}

func (c *funcDef) start() position { return c.pos }
