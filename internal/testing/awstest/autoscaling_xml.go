package awstest

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"time"
)

// The Auto Scaling Query API answers <ActionResponse><ActionResult>…
// with list items in <member> elements, and errors as
// <ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/>.

func xmlName(local string) xml.Name { return xml.Name{Space: AutoScalingNamespace, Local: local} }

type xmlResponseMetadata struct {
	RequestID string `xml:"RequestId"`
}

func responseMetadata() xmlResponseMetadata { return xmlResponseMetadata{RequestID: requestID()} }

type emptyResponse struct {
	XMLName  xml.Name
	Metadata xmlResponseMetadata `xml:"ResponseMetadata"`
}

type describeGroupsResponse struct {
	XMLName  xml.Name             `xml:"http://autoscaling.amazonaws.com/doc/2011-01-01/ DescribeAutoScalingGroupsResponse"`
	Result   describeGroupsResult `xml:"DescribeAutoScalingGroupsResult"`
	Metadata xmlResponseMetadata  `xml:"ResponseMetadata"`
}

type describeGroupsResult struct {
	Groups []xmlGroup `xml:"AutoScalingGroups>member"`
}

type xmlGroup struct {
	Name              string               `xml:"AutoScalingGroupName"`
	ARN               string               `xml:"AutoScalingGroupARN"`
	LaunchTemplate    *xmlLaunchTemplateID `xml:"LaunchTemplate,omitempty"`
	MinSize           int32                `xml:"MinSize"`
	MaxSize           int32                `xml:"MaxSize"`
	DesiredCapacity   int32                `xml:"DesiredCapacity"`
	DefaultCooldown   int32                `xml:"DefaultCooldown"`
	AvailabilityZones []string             `xml:"AvailabilityZones>member"`
	HealthCheckType   string               `xml:"HealthCheckType"`
	Instances         []xmlGroupInstance   `xml:"Instances>member"`
	CreatedTime       string               `xml:"CreatedTime"`
}

type xmlLaunchTemplateID struct {
	ID      string `xml:"LaunchTemplateId"`
	Name    string `xml:"LaunchTemplateName,omitempty"`
	Version string `xml:"Version"`
}

type xmlGroupInstance struct {
	ID                   string              `xml:"InstanceId"`
	InstanceType         string              `xml:"InstanceType"`
	AvailabilityZone     string              `xml:"AvailabilityZone"`
	LifecycleState       string              `xml:"LifecycleState"`
	HealthStatus         string              `xml:"HealthStatus"`
	LaunchTemplate       xmlLaunchTemplateID `xml:"LaunchTemplate"`
	ProtectedFromScaleIn bool                `xml:"ProtectedFromScaleIn"`
}

func xmlGroupOf(grp *group) xmlGroup {
	x := xmlGroup{
		Name:              grp.Name,
		ARN:               "arn:aws:autoscaling:" + regionOf(grp.Zones[0]) + ":111122223333:autoScalingGroup:00000000-0000-4000-8000-000000000000:autoScalingGroupName/" + grp.Name,
		MinSize:           grp.MinSize,
		MaxSize:           grp.MaxSize,
		DesiredCapacity:   grp.Desired,
		DefaultCooldown:   300,
		AvailabilityZones: grp.Zones,
		HealthCheckType:   "EC2",
		CreatedTime:       grp.created.UTC().Format(time.RFC3339),
	}
	if grp.LaunchTemplateID != "" {
		x.LaunchTemplate = &xmlLaunchTemplateID{ID: grp.LaunchTemplateID, Version: grp.LaunchTemplateVersion}
	}
	for _, in := range grp.instances {
		x.Instances = append(x.Instances, xmlGroupInstance{
			ID: in.ID, InstanceType: in.InstanceType, AvailabilityZone: in.Zone,
			LifecycleState: in.LifecycleState, HealthStatus: "Healthy",
			LaunchTemplate: xmlLaunchTemplateID{ID: in.LaunchTemplateID, Version: in.LaunchTemplateVersion},
		})
	}
	return x
}

type terminateResponse struct {
	XMLName  xml.Name            `xml:"http://autoscaling.amazonaws.com/doc/2011-01-01/ TerminateInstanceInAutoScalingGroupResponse"`
	Result   terminateResult     `xml:"TerminateInstanceInAutoScalingGroupResult"`
	Metadata xmlResponseMetadata `xml:"ResponseMetadata"`
}

type terminateResult struct {
	Activity xmlActivity `xml:"Activity"`
}

type xmlActivity struct {
	ID          string `xml:"ActivityId"`
	Group       string `xml:"AutoScalingGroupName"`
	Description string `xml:"Description"`
	Cause       string `xml:"Cause"`
	StartTime   string `xml:"StartTime"`
	StatusCode  string `xml:"StatusCode"`
	Progress    int    `xml:"Progress"`
}

type queryErrorResponse struct {
	XMLName   xml.Name      `xml:"http://autoscaling.amazonaws.com/doc/2011-01-01/ ErrorResponse"`
	Error     queryErrorXML `xml:"Error"`
	RequestID string        `xml:"RequestId"`
}

type queryErrorXML struct {
	Type    string `xml:"Type"`
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

func writeQueryError(w http.ResponseWriter, f Fault) {
	kind := "Sender"
	if f.Status >= 500 {
		kind = "Receiver"
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(f.Status)
	body, _ := xml.Marshal(queryErrorResponse{Error: queryErrorXML{Type: kind, Code: f.Code, Message: f.Message}, RequestID: requestID()})
	w.Write(append([]byte(xml.Header), body...))
}

func writeQueryXML(w http.ResponseWriter, v any) {
	body, err := xml.Marshal(v)
	if err != nil {
		writeQueryError(w, Fault{Status: http.StatusInternalServerError, Code: "InternalFailure", Message: err.Error()})
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(xml.Header)+len(body)))
	w.Write(append([]byte(xml.Header), body...))
}

// AutoScalingThrottling is how Auto Scaling throttles: 400 Throttling.
var AutoScalingThrottling = Fault{Status: http.StatusBadRequest, Code: "Throttling", Message: "Rate exceeded"}
