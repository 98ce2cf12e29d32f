package awstest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// AutoScalingNamespace is the XML namespace of Auto Scaling Query API
// responses; AutoScalingVersion is the API version the SDK sends.
const (
	AutoScalingNamespace = "http://autoscaling.amazonaws.com/doc/2011-01-01/"
	AutoScalingVersion   = "2011-01-01"
)

// Auto Scaling actions the server answers.
const (
	ActionDescribeAutoScalingGroups           = "DescribeAutoScalingGroups"
	ActionUpdateAutoScalingGroup              = "UpdateAutoScalingGroup"
	ActionSetDesiredCapacity                  = "SetDesiredCapacity"
	ActionTerminateInstanceInAutoScalingGroup = "TerminateInstanceInAutoScalingGroup"
)

// Instance lifecycle states the server reports.
const (
	LifecyclePending   = "Pending"
	LifecycleInService = "InService"
)

// AutoScalingGroup is the initial configuration of a group.
type AutoScalingGroup struct {
	Name string
	// Zones are the group's Availability Zones, in the order new instances
	// are balanced over them.
	Zones                     []string
	MinSize, MaxSize, Desired int32
	LaunchTemplateID          string
	LaunchTemplateVersion     string // a number, "$Latest" or "$Default"
	// InstanceType is used when the launch template names none.
	InstanceType string
}

// GroupInstance is one instance of a group as the server sees it.
type GroupInstance struct {
	ID             string
	Group          string
	Zone           string
	InstanceType   string
	PrivateIP      string
	PrivateDNSName string
	// LaunchTemplateID and LaunchTemplateVersion are what the group was set
	// to when the instance launched (Version may be "$Latest");
	// ResolvedVersion is the version number it was launched from.
	LaunchTemplateID      string
	LaunchTemplateVersion string
	ResolvedVersion       int
	ImageID               string
	LifecycleState        string
	LaunchTime            time.Time
}

// GroupHooks are called, in order and one at a time, when an instance of
// any group enters service or is terminated. The e2e suite uses them to
// create and delete the instance's Node.
type GroupHooks struct {
	InService  func(GroupInstance)
	Terminated func(GroupInstance)
}

// AutoScaling is a local Auto Scaling Query-protocol server that keeps each
// group at its desired capacity like the real service: it launches
// instances (balanced over the group's zones, from the group's launch
// template, registered with the EC2 server) and terminates them (default
// termination policy: the most populated zone, then the oldest
// launch-template version, then the oldest instance).
type AutoScaling struct {
	Behavior
	// URL is the endpoint, for AWS_ENDPOINT_URL_AUTO_SCALING.
	URL     string
	ec2     *EC2
	mu      sync.Mutex
	groups  map[string]*group
	next    int
	hooks   GroupHooks
	events  *hookQueue
	records []url.Values
	closed  bool
	// launchDelay is how long a new instance stays Pending.
	launchDelay time.Duration
}

type group struct {
	AutoScalingGroup
	instances []*GroupInstance // in launch order
	created   time.Time
	subnet    int // second octet of the group's private IPs
	// launchDelay, when set, is the group's own launch delay.
	launchDelay *time.Duration
}

// NewAutoScaling starts an Auto Scaling server backed by ec2 for launch
// templates and instances; it lives until the test ends.
func NewAutoScaling(t testing.TB, ec2 *EC2, hooks GroupHooks) *AutoScaling {
	s := &AutoScaling{ec2: ec2, groups: map[string]*group{}, hooks: hooks, events: newHookQueue()}
	s.URL = startLoopback(t, http.HandlerFunc(s.serve)).URL
	t.Cleanup(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.events.close()
	})
	return s
}

// CreateGroup creates a group and launches its desired capacity at once
// (InService immediately, hooks called), as if it had been running a while.
func (s *AutoScaling) CreateGroup(g AutoScalingGroup) error {
	if _, _, err := s.ec2.resolveLaunchTemplate(g.LaunchTemplateID, g.LaunchTemplateVersion); err != nil {
		return err
	}
	if len(g.Zones) == 0 {
		return fmt.Errorf("group %s has no zones", g.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.groups[g.Name]; ok {
		return fmt.Errorf("group %s already exists", g.Name)
	}
	grp := &group{AutoScalingGroup: g, created: time.Now(), subnet: len(s.groups) + 1}
	s.groups[g.Name] = grp
	s.reconcile(grp, true)
	return nil
}

// SetLaunchDelay sets how long an instance launched from now on stays
// Pending before it is InService (and InService hooks run). Groups created
// with CreateGroup start InService at once.
func (s *AutoScaling) SetLaunchDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.launchDelay = d
}

// SetGroupLaunchDelay is SetLaunchDelay for the instances one group
// launches from now on, whatever the server's delay.
func (s *AutoScaling) SetGroupLaunchDelay(name string, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	grp, ok := s.groups[name]
	if !ok {
		return fmt.Errorf("no group %s", name)
	}
	grp.launchDelay = &d
	return nil
}

// DeleteGroup deletes a group as DeleteAutoScalingGroup with ForceDelete
// does: its instances are terminated (hooks called) and the group is gone.
func (s *AutoScaling) DeleteGroup(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	grp, ok := s.groups[name]
	if !ok {
		return fmt.Errorf("no group %s", name)
	}
	for len(grp.instances) > 0 {
		s.remove(grp, 0)
	}
	delete(s.groups, name)
	return nil
}

// Instances returns the instances of a group that are not terminated.
func (s *AutoScaling) Instances(name string) []GroupInstance {
	s.mu.Lock()
	defer s.mu.Unlock()
	grp, ok := s.groups[name]
	if !ok {
		return nil
	}
	out := make([]GroupInstance, 0, len(grp.instances))
	for _, in := range grp.instances {
		out = append(out, *in)
	}
	return out
}

// Group returns a group's current settings.
func (s *AutoScaling) Group(name string) (AutoScalingGroup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	grp, ok := s.groups[name]
	if !ok {
		return AutoScalingGroup{}, false
	}
	return grp.AutoScalingGroup, true
}

// Requests returns the decoded form of every request received, in order.
func (s *AutoScaling) Requests() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.records)
}

// WaitHooks blocks until every hook queued so far has run.
func (s *AutoScaling) WaitHooks() { s.events.drain() }

func (s *AutoScaling) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeQueryError(w, Fault{Status: http.StatusBadRequest, Code: "InvalidAction", Message: "Query requests are POSTs"})
		return
	}
	if err := r.ParseForm(); err != nil {
		writeQueryError(w, Fault{Status: http.StatusBadRequest, Code: "MalformedQueryString", Message: err.Error()})
		return
	}
	form := r.PostForm
	s.mu.Lock()
	s.records = append(s.records, form)
	s.mu.Unlock()
	action := form.Get("Action")
	if fault, ok := s.begin(r.Context(), action); ok {
		writeQueryError(w, fault)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		writeQueryError(w, Fault{Status: http.StatusForbidden, Code: "InvalidClientTokenId", Message: "request is not signed"})
		return
	}
	if v := form.Get("Version"); v != AutoScalingVersion {
		writeQueryError(w, Fault{Status: http.StatusBadRequest, Code: "InvalidParameterValue", Message: "unsupported Version " + v})
		return
	}
	var resp any
	var fault *Fault
	switch action {
	case ActionDescribeAutoScalingGroups:
		resp, fault = s.describeGroups(indexed(form, "AutoScalingGroupNames.member"))
	case ActionUpdateAutoScalingGroup:
		resp, fault = s.updateGroup(form)
	case ActionSetDesiredCapacity:
		resp, fault = s.setDesired(form)
	case ActionTerminateInstanceInAutoScalingGroup:
		resp, fault = s.terminate(form.Get("InstanceId"), form.Get("ShouldDecrementDesiredCapacity") == "true")
	default:
		fault = &Fault{Status: http.StatusBadRequest, Code: "InvalidAction", Message: "The action " + action + " is not valid for this web service."}
	}
	if fault != nil {
		writeQueryError(w, *fault)
		return
	}
	writeQueryXML(w, resp)
}

func validationError(format string, args ...any) *Fault {
	return &Fault{Status: http.StatusBadRequest, Code: "ValidationError", Message: fmt.Sprintf(format, args...)}
}

func (s *AutoScaling) describeGroups(names []string) (any, *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(names) == 0 {
		for n := range s.groups {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	resp := describeGroupsResponse{Metadata: responseMetadata()}
	for _, n := range names {
		if grp, ok := s.groups[n]; ok {
			resp.Result.Groups = append(resp.Result.Groups, xmlGroupOf(grp))
		}
	}
	return resp, nil
}

func (s *AutoScaling) updateGroup(form url.Values) (any, *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	grp, ok := s.groups[form.Get("AutoScalingGroupName")]
	if !ok {
		return nil, validationError("AutoScalingGroup name not found - AutoScalingGroup %s not found", form.Get("AutoScalingGroupName"))
	}
	next := grp.AutoScalingGroup
	for key, dst := range map[string]*int32{"MinSize": &next.MinSize, "MaxSize": &next.MaxSize, "DesiredCapacity": &next.Desired} {
		if v := form.Get(key); v != "" {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 0 {
				return nil, validationError("%s %q is not a valid size", key, v)
			}
			*dst = int32(n)
		}
	}
	if id, v := form.Get("LaunchTemplate.LaunchTemplateId"), form.Get("LaunchTemplate.Version"); id != "" || v != "" {
		if id == "" {
			id = next.LaunchTemplateID
		}
		if v == "" {
			v = "$Default"
		}
		if _, _, err := s.ec2.resolveLaunchTemplate(id, v); err != nil {
			return nil, validationError("%v", err)
		}
		next.LaunchTemplateID, next.LaunchTemplateVersion = id, v
	}
	// The real service moves a desired capacity outside the new bounds
	// only when it is given; an explicit one must fit.
	if form.Get("DesiredCapacity") == "" {
		next.Desired = min(max(next.Desired, next.MinSize), next.MaxSize)
	}
	if fault := checkSizes(next); fault != nil {
		return nil, fault
	}
	grp.AutoScalingGroup = next
	s.reconcile(grp, false)
	return emptyResponse{XMLName: xmlName("UpdateAutoScalingGroupResponse"), Metadata: responseMetadata()}, nil
}

func checkSizes(g AutoScalingGroup) *Fault {
	if g.MinSize > g.MaxSize {
		return validationError("Minimum capacity %d must be less than or equal to maximum capacity %d", g.MinSize, g.MaxSize)
	}
	if g.Desired < g.MinSize || g.Desired > g.MaxSize {
		return validationError("Desired capacity:%d must be between the specified min size:%d and max size:%d", g.Desired, g.MinSize, g.MaxSize)
	}
	return nil
}

func (s *AutoScaling) setDesired(form url.Values) (any, *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	grp, ok := s.groups[form.Get("AutoScalingGroupName")]
	if !ok {
		return nil, validationError("AutoScalingGroup name not found - AutoScalingGroup %s not found", form.Get("AutoScalingGroupName"))
	}
	n, err := strconv.ParseInt(form.Get("DesiredCapacity"), 10, 32)
	if err != nil {
		return nil, validationError("DesiredCapacity %q is not a number", form.Get("DesiredCapacity"))
	}
	next := grp.AutoScalingGroup
	next.Desired = int32(n)
	if fault := checkSizes(next); fault != nil {
		return nil, fault
	}
	grp.AutoScalingGroup = next
	s.reconcile(grp, false)
	return emptyResponse{XMLName: xmlName("SetDesiredCapacityResponse"), Metadata: responseMetadata()}, nil
}

func (s *AutoScaling) terminate(id string, decrement bool) (any, *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, grp := range s.groups {
		i := slices.IndexFunc(grp.instances, func(in *GroupInstance) bool { return in.ID == id })
		if i < 0 {
			continue
		}
		if decrement {
			if grp.Desired-1 < grp.MinSize {
				return nil, validationError("Currently, desiredSize equals minSize (%d). Terminating instance without replacement will violate group's min size constraint. Either set shouldDecrementDesiredCapacity flag to false or lower group's min size.", grp.MinSize)
			}
			grp.Desired--
		}
		in := grp.instances[i]
		s.remove(grp, i)
		s.reconcile(grp, false)
		return terminateResponse{Metadata: responseMetadata(), Result: terminateResult{Activity: xmlActivity{
			ID: "a-" + strings.TrimPrefix(in.ID, "i-"), Group: grp.Name, StatusCode: "InProgress", Progress: 0,
			Description: "Terminating EC2 instance: " + in.ID,
			Cause:       "At " + time.Now().UTC().Format(time.RFC3339) + " instance " + in.ID + " was taken out of service in response to a user request.",
			StartTime:   time.Now().UTC().Format(time.RFC3339),
		}}}, nil
	}
	return nil, validationError("Instance Id not found - No managed instance found for instance ID: %s", id)
}

// remove terminates grp.instances[i]; s.mu is held.
func (s *AutoScaling) remove(grp *group, i int) {
	in := grp.instances[i]
	grp.instances = slices.Delete(grp.instances, i, i+1)
	s.ec2.setInstanceState(in.ID, "terminated")
	if in.LifecycleState == LifecycleInService && s.hooks.Terminated != nil {
		done := *in
		s.events.push(func() { s.hooks.Terminated(done) })
	}
}

// reconcile launches or terminates instances until the group has its
// desired capacity; s.mu is held. immediate skips the launch delay.
func (s *AutoScaling) reconcile(grp *group, immediate bool) {
	for int32(len(grp.instances)) > grp.Desired {
		s.remove(grp, victim(grp))
	}
	for int32(len(grp.instances)) < grp.Desired {
		s.launch(grp, immediate)
	}
}

// victim picks the instance the default termination policy removes: from
// the zone with the most instances, the one with the oldest
// launch-template version, then the one launched first.
func victim(grp *group) int {
	perZone := map[string]int{}
	for _, in := range grp.instances {
		perZone[in.Zone]++
	}
	best := -1
	for i, in := range grp.instances {
		if best < 0 {
			best = i
			continue
		}
		b := grp.instances[best]
		switch {
		case perZone[in.Zone] != perZone[b.Zone]:
			if perZone[in.Zone] > perZone[b.Zone] {
				best = i
			}
		case in.ResolvedVersion != b.ResolvedVersion:
			if in.ResolvedVersion < b.ResolvedVersion {
				best = i
			}
		}
	}
	return best
}

// launch starts one instance in the least populated zone; s.mu is held.
func (s *AutoScaling) launch(grp *group, immediate bool) {
	version, data, err := s.ec2.resolveLaunchTemplate(grp.LaunchTemplateID, grp.LaunchTemplateVersion)
	if err != nil {
		return // validated on every change; cannot happen
	}
	in := s.newInstance(grp, version, data)
	grp.instances = append(grp.instances, in)
	s.ec2.AddInstance(Instance{
		ID: in.ID, InstanceType: in.InstanceType, PrivateDNSName: in.PrivateDNSName,
		Interfaces:       []NetworkInterface{{PrivateIPs: []string{in.PrivateIP}}},
		AvailabilityZone: in.Zone, ImageID: in.ImageID, State: "running",
		Tags: map[string]string{
			"aws:autoscaling:groupName":     grp.Name,
			"aws:ec2launchtemplate:id":      grp.LaunchTemplateID,
			"aws:ec2launchtemplate:version": strconv.Itoa(version),
		},
	})
	delay := s.launchDelay
	if grp.launchDelay != nil {
		delay = *grp.launchDelay
	}
	if immediate || delay <= 0 {
		s.enterService(in)
		return
	}
	id := in.ID
	time.AfterFunc(delay, func() { s.enterServiceLater(id) })
}

// newInstance is the next instance of grp, in its least used zone, Pending;
// s.mu is held.
func (s *AutoScaling) newInstance(grp *group, version int, data LaunchTemplateData) *GroupInstance {
	perZone := map[string]int{}
	for _, in := range grp.instances {
		perZone[in.Zone]++
	}
	zone := grp.Zones[0]
	for _, z := range grp.Zones {
		if perZone[z] < perZone[zone] {
			zone = z
		}
	}
	s.next++
	n := s.next
	zi := slices.Index(grp.Zones, zone)
	ip := fmt.Sprintf("10.%d.%d.%d", grp.subnet, zi*64+n/250%64, n%250+4)
	return &GroupInstance{
		ID: fmt.Sprintf("i-%017x", 0xa5a000+n), Group: grp.Name, Zone: zone,
		InstanceType: firstNonEmpty(data.InstanceType, grp.InstanceType, "m5.large"),
		PrivateIP:    ip, PrivateDNSName: "ip-" + strings.ReplaceAll(ip, ".", "-") + "." + regionOf(zone) + ".compute.internal",
		LaunchTemplateID: grp.LaunchTemplateID, LaunchTemplateVersion: grp.LaunchTemplateVersion,
		ResolvedVersion: version, ImageID: data.ImageID, LifecycleState: LifecyclePending, LaunchTime: time.Now(),
	}
}

// enterServiceLater puts the instance id in service after its launch
// delay, unless the server closed or the instance left Pending meanwhile.
func (s *AutoScaling) enterServiceLater(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, g := range s.groups {
		for _, in := range g.instances {
			if in.ID == id && in.LifecycleState == LifecyclePending {
				s.enterService(in)
			}
		}
	}
}

// enterService marks in InService and queues the hook; s.mu is held.
func (s *AutoScaling) enterService(in *GroupInstance) {
	in.LifecycleState = LifecycleInService
	if s.hooks.InService != nil {
		ready := *in
		s.events.push(func() { s.hooks.InService(ready) })
	}
}

// regionOf turns an Availability Zone name into its region.
func regionOf(zone string) string {
	return strings.TrimRight(zone, "abcdefghijklmnopqrstuvwxyz")
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// hookQueue runs queued functions in order on one goroutine.
type hookQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []func()
	running bool
	closed  bool
}

func newHookQueue() *hookQueue {
	q := &hookQueue{}
	q.cond = sync.NewCond(&q.mu)
	go q.loop()
	return q
}

func (q *hookQueue) push(f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.queue = append(q.queue, f)
	q.cond.Broadcast()
}

func (q *hookQueue) loop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.queue) == 0 && !q.closed {
			q.cond.Wait()
		}
		if q.closed {
			return
		}
		f := q.queue[0]
		q.queue = q.queue[1:]
		q.running = true
		q.mu.Unlock()
		f()
		q.mu.Lock()
		q.running = false
		q.cond.Broadcast()
	}
}

// drain waits until the queue is empty and nothing runs.
func (q *hookQueue) drain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for (len(q.queue) > 0 || q.running) && !q.closed {
		q.cond.Wait()
	}
}

func (q *hookQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}
