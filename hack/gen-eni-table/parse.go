package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Sentinel errors for bad input data.
var (
	ErrBadRecord     = errors.New("bad instance record")
	ErrDuplicateType = errors.New("duplicate instance type")
	ErrNoRecords     = errors.New("no instance records")
	ErrBadSourceDate = errors.New("bad source date")
)

// record is one line of instance-network-limits.jsonl.
type record struct {
	InstanceType            string        `json:"instanceType"`
	MaxENIs                 int           `json:"maxENIs"`
	IPv4PerENI              int           `json:"ipv4PerENI"`
	DefaultNetworkCardIndex int           `json:"defaultNetworkCardIndex"`
	NetworkCards            []networkCard `json:"networkCards"`
	Hypervisor              string        `json:"hypervisor"`
	BareMetal               bool          `json:"bareMetal"`
}

// networkCard is one entry of record.NetworkCards.
type networkCard struct {
	Index   int `json:"index"`
	MaxENIs int `json:"maxENIs"`
}

// row is one generated table entry.
type row struct {
	instanceType string
	defaultENIs  int
	ipv4PerENI   int
	totalENIs    int
	hypervisor   string // Go identifier of the hypervisor constant
	bareMetal    bool
}

// Column limits: they match the field types of internal/config/eni.entry.
const (
	maxDefaultENIs = math.MaxUint8
	maxIPv4PerENI  = math.MaxUint8
	maxTotalENIs   = math.MaxUint16
)

// hypervisorIdents maps the input's hypervisor names to internal/config/eni constants.
var hypervisorIdents = map[string]string{
	"nitro":   "hvNitro",
	"xen":     "hvXen",
	"unknown": "hvUnknown",
	"":        "hvUnknown",
}

// instanceTypePattern is what an EC2 instance type name looks like.
var instanceTypePattern = regexp.MustCompile(`^[a-z0-9-]+\.[a-z0-9-]+$`)

// sourceDatePattern accepts YYYY-MM and YYYY-MM-DD.
var sourceDatePattern = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?$`)

// checkSourceDate rejects dates that are not YYYY-MM or YYYY-MM-DD.
func checkSourceDate(date string) error {
	if !sourceDatePattern.MatchString(date) {
		return fmt.Errorf("%w: %q, want YYYY-MM or YYYY-MM-DD", ErrBadSourceDate, date)
	}
	return nil
}

// parseRows decodes the JSON lines (strictly: unknown fields are errors),
// converts each record to a row and returns the rows sorted by instance type.
func parseRows(src []byte) ([]row, error) {
	var rows []row
	seen := make(map[string]int)
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		rec, err := decodeRecord(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		r, err := toRow(rec)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if first, dup := seen[r.instanceType]; dup {
			return nil, fmt.Errorf("line %d: %w: %q (first on line %d)", line, ErrDuplicateType, r.instanceType, first)
		}
		seen[r.instanceType] = line
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
	if len(rows) == 0 {
		return nil, ErrNoRecords
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.instanceType, b.instanceType) })
	return rows, nil
}

// decodeRecord decodes one JSON object, refusing unknown fields and
// trailing data.
func decodeRecord(text []byte) (record, error) {
	var rec record
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return record{}, fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
	if dec.More() {
		return record{}, fmt.Errorf("%w: trailing data after the JSON object", ErrBadRecord)
	}
	return rec, nil
}

// toRow checks a record and derives the table columns: the default card's
// ENIs (falling back to maxENIs when the card is not listed) and the total
// ENIs over all cards (at least maxENIs).
func toRow(rec record) (row, error) {
	if !instanceTypePattern.MatchString(rec.InstanceType) {
		return row{}, fmt.Errorf("%w: instance type %q", ErrBadRecord, rec.InstanceType)
	}
	hv, ok := hypervisorIdents[rec.Hypervisor]
	if !ok {
		return row{}, fmt.Errorf("%w: %s: hypervisor %q", ErrBadRecord, rec.InstanceType, rec.Hypervisor)
	}
	defaultENIs, totalENIs := rec.MaxENIs, 0
	for _, card := range rec.NetworkCards {
		if card.MaxENIs < 1 {
			return row{}, fmt.Errorf("%w: %s: network card %d has maxENIs %d", ErrBadRecord, rec.InstanceType, card.Index, card.MaxENIs)
		}
		if card.Index == rec.DefaultNetworkCardIndex {
			defaultENIs = card.MaxENIs
		}
		totalENIs += card.MaxENIs
	}
	totalENIs = max(totalENIs, rec.MaxENIs)
	r := row{
		instanceType: rec.InstanceType,
		defaultENIs:  defaultENIs,
		ipv4PerENI:   rec.IPv4PerENI,
		totalENIs:    totalENIs,
		hypervisor:   hv,
		bareMetal:    rec.BareMetal,
	}
	if err := checkRanges(r); err != nil {
		return row{}, err
	}
	return r, nil
}

// checkRanges makes sure every column fits its field in internal/config/eni.
func checkRanges(r row) error {
	switch {
	case r.defaultENIs < 1 || r.defaultENIs > maxDefaultENIs:
		return fmt.Errorf("%w: %s: default ENIs %d outside [1, %d]", ErrBadRecord, r.instanceType, r.defaultENIs, maxDefaultENIs)
	case r.ipv4PerENI < 1 || r.ipv4PerENI > maxIPv4PerENI:
		return fmt.Errorf("%w: %s: IPv4 per ENI %d outside [1, %d]", ErrBadRecord, r.instanceType, r.ipv4PerENI, maxIPv4PerENI)
	case r.totalENIs > maxTotalENIs:
		return fmt.Errorf("%w: %s: total ENIs %d above %d", ErrBadRecord, r.instanceType, r.totalENIs, maxTotalENIs)
	}
	return nil
}
